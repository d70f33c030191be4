#pragma once
// The objects this node holds (inline bytes, errors, shared-memory segments of its
// store), the ones freed before they arrived, and who waits for which: clients in Get
// or Wait, tasks for their arguments, other nodes pulling an object.
//
// Bookkeeping only: the table sends nothing, and reads time only from the Clock it is
// given (deadlines are that clock's MonoMillis). With an index (object_index.h) it
// keeps the node's small objects published there, for the node's processes to read
// without asking. The raylet completes the waiters the
// table hands back (replies, dispatch) and frees the segments it reports. Not
// thread-safe.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "runtime/base/clock.h"
#include "runtime/ids/ids.h"
#include "runtime/object_store/object_index.h"
#include "runtime/serialization/protocol.h"

namespace ray::raylet {

// Someone waiting for objects. Shared between the table (which counts down `needed`)
// and the raylet (which completes it once).
struct Waiter {
  enum Kind { kGet, kWait, kTask, kPeerPull } kind;
  std::string peer;  // client, or (kPeerPull) the raylet that asked for the object
  uint64_t request_id = 0;
  std::vector<ObjectId> ids;
  size_t needed = 0;  // objects still missing before this waiter completes
  int64_t deadline_ms = -1;
  protocol::TaskSpec task;  // kTask (kWait: task.num_returns is how many it waits for)
  std::string origin;  // kTask forwarded here: the node to pull missing arguments from
  bool done = false;
};

struct StoredObject {
  protocol::ObjectState state;
  std::string data;  // inline bytes or error info
  std::string segment;
  uint64_t size = 0;
};

class ObjectTable {
 public:
  // `clock` outlives the table.
  explicit ObjectTable(const Clock& clock = Clock::System()) : clock_(clock) {}
  // From now on, inline objects and errors inserted are published in `index` (which
  // outlives the table) and withdrawn when they are erased.
  void PublishIn(object_store::ObjectIndexWriter* index) { index_ = index; }

  const StoredObject* Find(const ObjectId& id) const;
  bool Ready(const ObjectId& id) const { return objects_.count(id) > 0; }
  // Calls f(id, object) for each object held here.
  template <typename F>
  void ForEach(F&& f) const {
    for (const auto& [id, o] : objects_) f(id, o);
  }

  // Adds an object that is not here yet. `complete(waiter)` is called for each waiter
  // it was the last missing object of (after the table has let go of them, so that
  // completing one may add waiters).
  template <typename Complete>
  void Insert(const ObjectId& id, StoredObject o, Complete&& complete);
  // Removes an object; false if it was not here.
  bool Erase(const ObjectId& id);

  // An object freed by its owner before it arrived is dropped when it comes.
  void FreeOnArrival(const ObjectId& id) { free_on_arrival_.insert(id); }
  // Whether `id` was freed before it arrived (it is dropped; asked once).
  bool TakeFreedOnArrival(const ObjectId& id) { return free_on_arrival_.erase(id) > 0; }

  // Registers a waiter: counts the distinct objects of `w->ids` missing (calling
  // `missing(id)` for each, e.g. to fetch it) into `w->needed`. A kWait waiter needs
  // only task.num_returns of its objects (at most all). Returns true if nothing is
  // missing: the caller completes it now. Else it waits, until its deadline if any.
  template <typename Missing>
  bool AddWaiter(const std::shared_ptr<Waiter>& w, Missing&& missing);
  // Whether someone waits for `id`.
  bool Awaited(const ObjectId& id) const { return waiting_on_.count(id) > 0; }
  // The earliest deadline of a waiter, if any.
  std::optional<int64_t> NextDeadline() const;
  // Calls expire(waiter) for each waiter not done whose deadline has come (is at or
  // before the clock's MonoMillis now).
  template <typename Expire>
  void ExpireWaiters(Expire&& expire);

  // Removes the objects of job `job_id` (and its pending frees), calling
  // freed(id, object) for each object removed.
  template <typename Freed>
  void EraseJob(const JobId& job_id, Freed&& freed);

 private:
  void Publish(const ObjectId& id, const StoredObject& o);
  void Withdraw(const ObjectId& id) {
    if (index_) index_->Withdraw(id);
  }

  const Clock& clock_;
  object_store::ObjectIndexWriter* index_ = nullptr;
  std::unordered_map<ObjectId, StoredObject, IdHash> objects_;
  std::unordered_set<ObjectId, IdHash> free_on_arrival_;  // freed before their task ended
  std::unordered_map<ObjectId, std::vector<std::shared_ptr<Waiter>>, IdHash> waiting_on_;
  std::multimap<int64_t, std::weak_ptr<Waiter>> deadlines_;
};

// ---------------------------------------------------------------------------

template <typename Complete>
void ObjectTable::Insert(const ObjectId& id, StoredObject o, Complete&& complete) {
  auto [at, added] = objects_.emplace(id, std::move(o));
  if (added) Publish(id, at->second);
  auto w = waiting_on_.find(id);
  if (w == waiting_on_.end()) return;
  auto waiters = std::move(w->second);
  waiting_on_.erase(w);
  for (auto& waiter : waiters) {
    if (waiter->done) continue;
    if (waiter->needed > 0) --waiter->needed;
    if (waiter->needed == 0) complete(waiter);
  }
}

template <typename Missing>
bool ObjectTable::AddWaiter(const std::shared_ptr<Waiter>& w, Missing&& missing) {
  std::unordered_set<ObjectId, IdHash> seen;
  w->needed = 0;
  for (const auto& id : w->ids) {
    if (Ready(id) || !seen.insert(id).second) continue;
    waiting_on_[id].push_back(w);
    ++w->needed;
    missing(id);
  }
  if (w->kind == Waiter::kWait) {
    size_t ready = w->ids.size() - w->needed;
    size_t want = std::min<size_t>(w->task.num_returns, w->ids.size());
    // Complete when `want` are ready: needed counts down to (missing - (want - ready)).
    w->needed = ready >= want ? 0 : want - ready;
  }
  if (w->needed == 0) return true;
  if (w->deadline_ms >= 0) deadlines_.emplace(w->deadline_ms, w);
  return false;
}

template <typename Expire>
void ObjectTable::ExpireWaiters(Expire&& expire) {
  const int64_t now_ms = clock_.MonoMillis();
  while (!deadlines_.empty() && deadlines_.begin()->first <= now_ms) {
    auto w = deadlines_.begin()->second.lock();
    deadlines_.erase(deadlines_.begin());
    if (w && !w->done) expire(w);
  }
}

template <typename Freed>
void ObjectTable::EraseJob(const JobId& job_id, Freed&& freed) {
  auto of_job = [&](const ObjectId& id) { return TaskJob(id.Task()) == job_id; };
  std::erase_if(free_on_arrival_, of_job);
  for (auto it = objects_.begin(); it != objects_.end();) {
    if (of_job(it->first)) {
      Withdraw(it->first);
      freed(it->first, it->second);
      it = objects_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace ray::raylet
