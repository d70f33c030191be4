#pragma once
// AsyncRequestsManager: RLlib's ray.rllib.execution.parallel_requests. It keeps up to
// `max_remote_requests_in_flight_per_worker` calls outstanding on each of a set of
// actors and hands back whatever has finished, grouped by the actor that ran it.
//
//   using Manager = AsyncRequestsManager<RemoteWorker, SampleResult>;
//   Manager manager(workers, {.max_remote_requests_in_flight_per_worker = 2});
//   auto sample = [&](const Manager::Handle& w) {
//     return w.Task(&RemoteWorker::Sample).Remote(weights);
//   };
//   manager.CallOnAllAvailable(sample);
//   for (auto& [worker, results] : manager.GetReady()) ...
//
// Shape: the manager is typed on the actor class and on the result type R of the
// calls it tracks, so results come back as CallResult<R> (value or error) without a
// cast. A call is a Submit function that starts one method on the given handle and
// returns its ObjectRef<R>; it stands for RLlib's `actor.apply.remote(fn, ...)`.
//
// Contracts:
// - No hidden queue: a call over a worker's limit is refused (Call returns false,
//   CallOnAllAvailable does not count it) and never submitted.
// - Call without a worker picks workers round robin, skipping busy ones; the cursor
//   moves one past the worker chosen.
// - GetReady returns each finished call exactly once; within a worker, in submission
//   order. Every returned call frees its slot first, failed ones included: an error
//   is a CallResult with `error` set, never an exception that loses the batch.
// - RemoveWorkers makes workers unschedulable. Their in-flight calls are dropped
//   (never returned, no longer counted) with remove_in_flight_requests, and are
//   otherwise still returned by GetReady, keyed by the removed worker.
//
// Thread safety: none; use it from one thread (like the ray API itself).
//
// Differences from RLlib, on purpose: over-limit calls are refused, as RLlib's code
// does (its docs promise a queue); a call that raised frees its slot and comes back
// as an error (RLlib leaks the slot and loses the batch); the statistics add
// num_workers, num_available_workers and num_queued_requests (always 0).

#include <ray/api.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "runtime/rllib/execution/call_result.h"

namespace ray::rllib {

template <typename Actor, typename R>
class AsyncRequestsManager {
 public:
  using Handle = ActorHandle<Actor>;
  // Starts one method call on `worker`, e.g. `w.Task(&Actor::Step).Remote(x)`.
  using Submit = std::function<ObjectRef<R>(const Handle& worker)>;

  struct Options {
    // Calls one worker may have outstanding. Must be >= 1.
    int max_remote_requests_in_flight_per_worker = 2;
    // How long GetReady() waits for all pending calls to finish before it returns
    // the finished ones: 0 polls, nullopt waits until every pending call is done.
    std::optional<std::chrono::milliseconds> wait_timeout = std::chrono::milliseconds(0);
    // GetReady() returns the calls' refs without fetching them (value stays null,
    // error unset); the caller ray::Get()s them.
    bool return_object_refs = false;
  };

  struct Statistics {
    size_t num_pending_inflight_requests = 0;  // submitted, not yet returned or dropped
    size_t num_workers = 0;                    // schedulable workers
    size_t num_available_workers = 0;          // schedulable and below the limit
    size_t num_queued_requests = 0;            // always 0: there is no queue
  };

  // The finished calls of one worker, in submission order.
  struct WorkerResults {
    Handle worker;
    std::vector<CallResult<R>> results;
  };

  // Throws std::invalid_argument if the in-flight limit is below 1. Duplicate
  // workers are added once.
  explicit AsyncRequestsManager(const std::vector<Handle>& workers, Options options = {})
      : options_(options) {
    if (options_.max_remote_requests_in_flight_per_worker < 1) {
      throw std::invalid_argument("max_remote_requests_in_flight_per_worker must be >= 1");
    }
    AddWorkers(workers);
  }

  // Submits to the next worker below its limit, round robin. False (nothing
  // submitted) when every worker is busy or there are none.
  bool Call(const Submit& submit) {
    const size_t n = workers_.size();
    for (size_t tried = 0; tried < n; ++tried) {
      const Handle worker = workers_[cursor_];
      cursor_ = (cursor_ + 1) % n;
      if (Available(worker)) {
        Record(worker, submit(worker));
        return true;
      }
    }
    return false;
  }

  // Submits to `worker` if it is below its limit (no fallback to another worker).
  // Throws std::invalid_argument if `worker` is not managed.
  bool Call(const Handle& worker, const Submit& submit) {
    if (IndexOf(worker) == workers_.size()) {
      throw std::invalid_argument("worker " + internal::ActorIdHex(worker.Binary()) +
                                  " has not been added to the manager: AddWorkers() it first");
    }
    if (!Available(worker)) return false;
    Record(worker, submit(worker));
    return true;
  }

  // At most one call per worker, in worker order; returns how many were submitted.
  int CallOnAllAvailable(const Submit& submit) {
    int submitted = 0;
    const std::vector<Handle> workers = workers_;
    for (const Handle& w : workers) submitted += Call(w, submit) ? 1 : 0;
    return submitted;
  }

  // The calls finished within Options::wait_timeout (see the header comment).
  std::vector<WorkerResults> GetReady() { return GetReady(options_.wait_timeout); }

  // As GetReady(), waiting up to `timeout` (nullopt: until all pending calls are
  // done). Workers with nothing finished are absent; workers appear in the order
  // of their earliest finished call.
  std::vector<WorkerResults> GetReady(std::optional<std::chrono::milliseconds> timeout) {
    std::vector<WorkerResults> out;
    if (pending_.empty()) return out;
    std::vector<ObjectRef<R>> refs;
    refs.reserve(pending_.size());
    for (const Request& r : pending_) refs.push_back(r.ref);
    WaitResult<R> waited = Wait(refs, refs.size(), internal::WaitMillis(timeout));

    // Both lists keep the input order: split pending_ by walking them together.
    std::vector<Request> ready, still_pending;
    size_t next_ready = 0;
    for (Request& r : pending_) {
      bool is_ready = next_ready < waited.ready.size() && waited.ready[next_ready] == r.ref;
      if (is_ready) ++next_ready;
      (is_ready ? ready : still_pending).push_back(std::move(r));
    }
    pending_ = std::move(still_pending);
    for (const Request& r : ready) Release(r.worker);  // before any fetch can fail

    std::unordered_map<std::string, size_t> slot;  // actor id -> index in out
    for (const Request& r : ready) {
      auto [it, inserted] = slot.emplace(r.worker.Binary(), out.size());
      if (inserted) out.push_back(WorkerResults{r.worker, {}});
      CallResult<R> result;
      if (options_.return_object_refs) {
        result.ref = r.ref;
      } else {
        result = internal::Fetch(r.ref);
      }
      out[it->second].results.push_back(std::move(result));
    }
    return out;
  }

  // Appends workers not already managed; they become schedulable at the end of the
  // round robin. A re-added worker's calls still in flight count toward its limit.
  void AddWorkers(std::vector<Handle> workers) {
    for (const Handle& w : workers) {
      if (IndexOf(w) == workers_.size()) workers_.push_back(w);
    }
  }
  void AddWorkers(const Handle& worker) { AddWorkers(std::vector<Handle>{worker}); }

  // Makes the workers unschedulable; see the header comment for their in-flight
  // calls. Unknown workers are ignored.
  void RemoveWorkers(std::vector<Handle> workers, bool remove_in_flight_requests = false) {
    for (const Handle& w : workers) {
      size_t i = IndexOf(w);
      if (i < workers_.size()) workers_.erase(workers_.begin() + static_cast<std::ptrdiff_t>(i));
      if (remove_in_flight_requests) DropInFlight(w);
    }
    if (workers_.empty()) {
      cursor_ = 0;
    } else if (cursor_ >= workers_.size()) {
      cursor_ = workers_.size() - 1;
    }
  }
  void RemoveWorkers(const Handle& worker, bool remove_in_flight_requests = false) {
    RemoveWorkers(std::vector<Handle>{worker}, remove_in_flight_requests);
  }

  // Calls outstanding on `worker` (0 for unknown workers).
  size_t NumInFlight(const Handle& worker) const {
    auto it = in_flight_.find(worker.Binary());
    return it == in_flight_.end() ? 0 : it->second;
  }

  Statistics GetStatistics() const {
    Statistics s;
    s.num_pending_inflight_requests = pending_.size();
    s.num_workers = workers_.size();
    for (const Handle& w : workers_) s.num_available_workers += Available(w) ? 1 : 0;
    return s;
  }

  // The schedulable workers, in round-robin order.
  const std::vector<Handle>& workers() const { return workers_; }

 private:
  struct Request {
    ObjectRef<R> ref;
    Handle worker;
  };

  size_t IndexOf(const Handle& worker) const {
    for (size_t i = 0; i < workers_.size(); ++i) {
      if (workers_[i].Binary() == worker.Binary()) return i;
    }
    return workers_.size();
  }

  bool Available(const Handle& worker) const {
    return NumInFlight(worker) <
           static_cast<size_t>(options_.max_remote_requests_in_flight_per_worker);
  }

  void Record(const Handle& worker, ObjectRef<R> ref) {
    ++in_flight_[worker.Binary()];
    pending_.push_back(Request{std::move(ref), worker});
  }

  void Release(const Handle& worker) {
    auto it = in_flight_.find(worker.Binary());
    if (it != in_flight_.end() && --it->second == 0) in_flight_.erase(it);
  }

  void DropInFlight(const Handle& worker) {
    in_flight_.erase(worker.Binary());
    std::erase_if(pending_, [&](const Request& r) { return r.worker.Binary() == worker.Binary(); });
  }

  Options options_;
  std::vector<Handle> workers_;                        // schedulable, round-robin order
  size_t cursor_ = 0;                                  // next worker Call() tries
  std::unordered_map<std::string, size_t> in_flight_;  // actor id -> calls outstanding
  std::vector<Request> pending_;                       // submission order
};

}  // namespace ray::rllib
