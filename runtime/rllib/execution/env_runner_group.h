#pragma once
// EnvRunnerGroup: RLlib's ray.rllib.env.env_runner_group (WorkerSet before it): zero
// or one local worker, living in this process, plus n remote workers, each an actor
// of class Worker, with fault tolerance in the manner of RLlib's
// FaultTolerantActorManager.
//
//   EnvRunnerGroup<Sampler>::Spec spec;
//   spec.create_remote = [&](int id) {
//     return ray::Actor(Sampler::Create).SetResource("CPU", 1).Remote(env, id);
//   };
//   spec.probe = HealthProbe<Sampler>(&Sampler::Ping);
//   EnvRunnerGroup<Sampler> group(spec, {.num_workers = 2, .local_worker = false});
//   group.SyncWeights(&Sampler::SetWeights, policy.GetWeights());
//   for (auto& [id, batch] : group.ForeachWorker(&Sampler::Sample)) ...
//   group.ProbeUnhealthyWorkers();
//
// A call on the workers is a method of Worker plus its arguments: the local worker
// runs it directly, the remote ones as an actor task (RLlib ships a function to
// every worker's `apply`; a C++ lambda cannot travel).
//
// Ids: the local worker is 0; remote ids start at 1, only grow and are never reused,
// and a worker's id is the index its factory receives. Results come in id order.
//
// Health: a remote call that fails (ray::TaskError, ray::ActorDiedError,
// ray::WorkerCrashedError, ...) marks its worker unhealthy and drops the worker's
// outstanding async calls; a call that times out does not. A worker becomes healthy
// again only through a call made with mark_healthy (FetchReadyAsyncReqs by default)
// or through ProbeUnhealthyWorkers; each such unhealthy -> healthy transition counts
// as a restart. Failed calls are raised (the first, with its original type, once the
// whole call has been accounted for) unless ignore_worker_failures or
// recreate_failed_workers is set, in which case their results are just missing.
// With recreate_failed_workers, ProbeUnhealthyWorkers replaces workers whose actor
// is gone with new actors from the factory under the same id.
//
// The local worker's own exceptions propagate unchanged and do not affect health.
// Thread safety: none; use the group from one thread.
//
// Differences from RLlib, on purpose:
// - Workers are made by a factory the caller supplies (any actor class), and
//   replaced by the group itself, rather than restarted by the actor runtime.
// - remote_worker_ids = {} selects no worker (RLlib: all of them).
// - A worker marked unhealthy loses its outstanding async calls (RLlib intends
//   this, but its bookkeeping keeps them).
// - Async calls are tracked per result type: FetchReadyAsyncReqs<R> returns the
//   calls that return R, as RLlib's fetch by tag; the in-flight limit counts all.
// - No policy, env, spaces or connector-state methods: this is the execution layer.

#include <ray/api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeindex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "runtime/rllib/execution/async_requests_manager.h"
#include "runtime/rllib/execution/call_result.h"
#include "runtime/rllib/execution/health_probe.h"

namespace ray::rllib {

// One worker's successful result.
template <typename R>
struct WorkerResult {
  int worker_id = 0;  // 0: the local worker
  R value;
};

namespace internal {

// A pointer to a method, the unit of work sent to every worker.
template <typename M>
concept Method = std::is_member_function_pointer_v<M>;

// What a call of method M yields: its return type, with void as msgpack nil.
template <typename M>
using MethodReturn = typename ::ray::internal::FunctionTraits<M>::Return;
template <typename M>
using MethodResult =
    std::conditional_t<std::is_void_v<MethodReturn<M>>, msgpack::type::nil_t, MethodReturn<M>>;

// An argument for parameter type P of a local call: an ObjectRef<P> is fetched.
template <typename P, typename A>
decltype(auto) LocalArg(const A& a) {
  if constexpr (std::is_same_v<A, ObjectRef<P>>) {
    return P(*Get(a));
  } else {
    return (a);
  }
}

}  // namespace internal

template <typename Worker>
class EnvRunnerGroup {
 public:
  using Handle = ActorHandle<Worker>;
  using Millis = std::chrono::milliseconds;

  // How the group makes and checks workers.
  struct Spec {
    // Starts the remote worker `worker_id` (>= 1). Required to have remote workers.
    std::function<Handle(int worker_id)> create_remote;
    // Makes the local worker (id 0). Required when the group has one.
    std::function<std::unique_ptr<Worker>()> create_local;
    // Liveness call; without one, ProbeUnhealthyWorkers can only recreate.
    HealthProbe<Worker> probe;
  };

  struct Options {
    int num_workers = 0;  // remote workers the constructor starts
    // Make a local worker. Forced on when num_workers is 0, as in RLlib.
    bool local_worker = true;
    int max_requests_in_flight_per_worker = 2;  // async calls per remote worker, >= 1
    // ProbeUnhealthyWorkers replaces lost workers; implies ignore_worker_failures.
    bool recreate_failed_workers = false;
    // Failed remote calls are not raised: the worker is only marked unhealthy.
    bool ignore_worker_failures = false;
    // Probe the workers AddWorkers (and the constructor) start, and raise a failure
    // as a failed call (the actor's constructor error). Needs Spec::probe.
    bool validate_workers_after_construction = true;
    Millis health_probe_timeout{30000};  // how long probes wait for an answer
  };

  // Which workers a fan-out goes to.
  struct ForeachOptions {
    bool local_worker = true;  // ForeachWorker only: run on the local worker too, first
    bool healthy_only = true;  // skip unhealthy remote workers
    // Remote workers to call, by id (nullopt: all; an empty list: none). Unknown ids
    // are an std::invalid_argument.
    std::optional<std::vector<int>> remote_worker_ids = std::nullopt;
    // ForeachWorker only: how long to wait for the remote calls. nullopt waits for
    // all; 0 returns at once (fire and forget). Unfinished calls' results are dropped.
    std::optional<Millis> timeout = std::nullopt;
    bool mark_healthy = false;  // ForeachWorker only: a success restores its worker
  };

  struct SyncOptions {
    std::optional<std::vector<int>> to_worker_ids = std::nullopt;  // nullopt: all healthy remotes
    // How long to wait for the workers to apply the weights (as ForeachOptions::timeout);
    // 0 returns at once.
    std::optional<Millis> timeout = Millis(0);
  };

  // Starts options.num_workers remote workers (ids 1..n) and the local worker.
  // Throws std::invalid_argument for a bad spec or options; raises a validation
  // failure (see Options) after stopping the workers it started.
  EnvRunnerGroup(Spec spec, Options options) : spec_(std::move(spec)), options_(options) {
    if (options_.max_requests_in_flight_per_worker < 1) {
      throw std::invalid_argument("max_requests_in_flight_per_worker must be >= 1");
    }
    if (options_.num_workers < 0) throw std::invalid_argument("num_workers must be >= 0");
    if (options_.local_worker || options_.num_workers == 0) {
      if (!spec_.create_local) {
        throw std::invalid_argument("a group with a local worker needs Spec::create_local");
      }
      local_ = spec_.create_local();
    }
    try {
      AddWorkers(options_.num_workers);
    } catch (...) {
      Stop();
      throw;
    }
  }

  // The local worker, or null.
  Worker* local_worker() const { return local_.get(); }
  // The remote worker `id`, or nullopt if there is none.
  std::optional<Handle> remote_worker(int id) const {
    auto it = remotes_.find(id);
    if (it == remotes_.end()) return std::nullopt;
    return it->second.handle;
  }

  std::vector<int> HealthyWorkerIds() const {
    std::vector<int> ids;
    for (const auto& [id, r] : remotes_) {
      if (r.healthy) ids.push_back(id);
    }
    return ids;
  }
  int num_remote_workers() const { return static_cast<int>(remotes_.size()); }
  int num_healthy_remote_workers() const { return static_cast<int>(HealthyWorkerIds().size()); }
  int num_healthy_workers() const { return (local_ ? 1 : 0) + num_healthy_remote_workers(); }
  // Unhealthy -> healthy transitions (probes, recreations, mark_healthy successes).
  int num_remote_worker_restarts() const { return restarts_; }
  int num_in_flight_async_reqs() const {
    int n = 0;
    for (const auto& [type, channel] : channels_) n += static_cast<int>(channel->NumPending());
    return n;
  }

  // Starts `n` remote workers with fresh ids; returns the ids. Validates them if
  // Options::validate_workers_after_construction (a failure is raised unless ignored).
  std::vector<int> AddWorkers(int n) {
    if (n > 0 && !spec_.create_remote) {
      throw std::invalid_argument("remote workers need Spec::create_remote");
    }
    std::vector<int> ids;
    for (int i = 0; i < n; ++i) {
      int id = next_id_++;
      Install(id, spec_.create_remote(id));
      ids.push_back(id);
    }
    if (options_.validate_workers_after_construction && spec_.probe && !ids.empty()) {
      std::vector<std::pair<int, std::optional<RemoteError>>> answers = Probe(ids);
      std::vector<RemoteError> errors;
      for (auto& [id, error] : answers) {
        if (error) {
          MarkUnhealthy(id, *error);
          errors.push_back(*error);
        }
      }
      RaiseUnlessIgnored(errors);
    }
    return ids;
  }

  // Kills the workers and forgets them with their async calls. Unknown ids are
  // ignored; ids are not reused.
  void RemoveWorkers(const std::vector<int>& ids) {
    for (int id : ids) {
      auto it = remotes_.find(id);
      if (it == remotes_.end()) continue;
      Uninstall(it->second.handle);
      remotes_.erase(it);
      restored_.erase(id);
    }
  }

  // Kills every remote worker and drops the local one.
  void Stop() {
    std::vector<int> ids;
    for (const auto& [id, r] : remotes_) ids.push_back(id);
    RemoveWorkers(ids);
    local_.reset();
  }

  // Calls `method(args...)` on the local worker (first) and the selected remote
  // workers, and returns the successes in id order. See the header comment for
  // failures; a call still running at the timeout is left out and keeps its worker
  // healthy.
  template <internal::Method M, typename... Args>
  std::vector<WorkerResult<internal::MethodResult<M>>> ForeachWorker(const ForeachOptions& o,
                                                                     M method,
                                                                     const Args&... args) {
    using R = internal::MethodResult<M>;
    std::vector<WorkerResult<R>> out;
    if (o.local_worker && local_) out.push_back(WorkerResult<R>{0, CallLocal(method, args...)});
    auto submit = [&](const Handle& h) { return h.Task(method).Remote(args...); };
    CallRemotes<R>(o, submit, &out);
    return out;
  }
  template <internal::Method M, typename... Args>
  std::vector<WorkerResult<internal::MethodResult<M>>> ForeachWorker(M method,
                                                                     const Args&... args) {
    return ForeachWorker(ForeachOptions{}, method, args...);
  }

  // Starts `method(args...)` on each selected remote worker that has fewer than
  // max_requests_in_flight_per_worker async calls outstanding (of any result type);
  // returns how many calls were started. Busy workers are skipped, not queued.
  // Never touches the local worker.
  template <internal::Method M, typename... Args>
  int ForeachWorkerAsync(const ForeachOptions& o, M method, const Args&... args) {
    using R = internal::MethodResult<M>;
    auto& manager = ChannelFor<R>().manager;
    auto submit = [&](const Handle& h) { return h.Task(method).Remote(args...); };
    int started = 0;
    for (int id : Select(o)) {
      const Handle& h = remotes_.at(id).handle;
      if (InFlight(h) >= static_cast<size_t>(options_.max_requests_in_flight_per_worker)) continue;
      started += manager.Call(h, submit) ? 1 : 0;
    }
    return started;
  }
  template <internal::Method M, typename... Args>
  int ForeachWorkerAsync(M method, const Args&... args) {
    return ForeachWorkerAsync(ForeachOptions{}, method, args...);
  }

  // The async calls returning R (void methods: msgpack::type::nil_t) that finished
  // within `timeout` (0 polls, nullopt waits for all): successes in id order, each
  // call once. Failures and mark_healthy as in ForeachWorker.
  template <typename R>
  std::vector<WorkerResult<R>> FetchReadyAsyncReqs(std::optional<Millis> timeout = Millis(0),
                                                   bool mark_healthy = true) {
    std::vector<WorkerResult<R>> out;
    auto it = channels_.find(std::type_index(typeid(R)));
    if (it == channels_.end()) return out;
    auto& manager = static_cast<Channel<R>&>(*it->second).manager;
    std::vector<std::pair<int, CallResult<R>>> answers;
    for (auto& group : manager.GetReady(timeout)) {
      auto id = id_by_actor_.find(group.worker.Binary());
      if (id == id_by_actor_.end()) continue;
      for (auto& r : group.results) answers.emplace_back(id->second, std::move(r));
    }
    std::stable_sort(answers.begin(), answers.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    Collect(std::move(answers), mark_healthy, &out);
    return out;
  }

  // Puts `weights` into the object store once and calls `set_weights` with that one
  // ref on the target remote workers (the local worker, usually their source, is
  // not a target). `set_weights` takes the weights (resolved by the runtime) or an
  // ObjectRef to them. Returns the ref.
  template <internal::Method M, typename W>
  ObjectRef<W> SyncWeights(M set_weights, const W& weights, const SyncOptions& o = {}) {
    ObjectRef<W> ref = Put(weights);
    ForeachOptions f;
    f.remote_worker_ids = o.to_worker_ids;
    f.timeout = o.timeout;
    std::vector<WorkerResult<internal::MethodResult<M>>> acks;
    CallRemotes<internal::MethodResult<M>>(
        f, [&](const Handle& h) { return h.Task(set_weights).Remote(ref); }, &acks);
    return ref;
  }

  // Accounts for a failed call the caller made itself on remote worker `id` (an
  // optimizer's own requests): marks the worker unhealthy, dropping its async calls,
  // and raises the failure unless ignore_worker_failures or recreate_failed_workers
  // is set. Unknown ids are an std::invalid_argument.
  void ReportFailure(int id, const RemoteError& error) {
    if (!remotes_.count(id)) throw std::invalid_argument("no remote worker " + std::to_string(id));
    MarkUnhealthy(id, error);
    RaiseUnlessIgnored({error});
  }

  // RLlib's restore point. With recreate_failed_workers, replaces each unhealthy
  // worker whose actor is gone by a new actor with the same id; then probes every
  // unhealthy worker (Spec::probe, health_probe_timeout) and marks those that answer
  // healthy. Without a probe, recreated workers count as restored and the others
  // stay unhealthy. Returns the ids restored by this call plus those restored by
  // mark_healthy calls since the last probe, ascending, each once. Never raises a
  // worker's failure: one that fails or times out stays unhealthy.
  std::vector<int> ProbeUnhealthyWorkers() {
    std::vector<int> unhealthy, recreated;
    for (auto& [id, r] : remotes_) {
      if (r.healthy) continue;
      unhealthy.push_back(id);
      if (options_.recreate_failed_workers && r.lost) {
        Uninstall(r.handle);
        Install(id, spec_.create_remote(id));
        recreated.push_back(id);
      }
    }
    if (spec_.probe) {
      for (auto& [id, error] : Probe(unhealthy)) {
        if (error) {
          remotes_.at(id).lost = error->worker_lost();
        } else {
          MarkHealthy(id);
        }
      }
    } else {
      for (int id : recreated) MarkHealthy(id);
    }
    std::vector<int> out(restored_.begin(), restored_.end());
    restored_.clear();
    return out;
  }

  // ProbeUnhealthyWorkers, saying each restored worker in the trial's log: what the
  // optimizers call after a tolerated failure.
  std::vector<int> RestoreWorkers() {
    std::vector<int> ids = ProbeUnhealthyWorkers();
    for (int id : ids) std::printf("rollout worker %d was replaced\n", id);
    return ids;
  }

  // For optimizers that only sample remotely: std::invalid_argument naming
  // `optimizer` when the group has no remote worker (RLlib's "training will hang").
  void RequireRemoteWorkers(const std::string& optimizer) const {
    if (num_remote_workers() == 0) {
      throw std::invalid_argument("Config num_workers=0 means training will hang! (" + optimizer +
                                  " needs num_workers >= 1)");
    }
  }

 private:
  struct Remote {
    Handle handle;
    bool healthy = true;
    bool lost = false;  // unhealthy because its actor is gone
  };

  // The async calls of one result type.
  struct ChannelBase {
    virtual ~ChannelBase() = default;
    virtual void Add(const Handle& h) = 0;
    virtual void Drop(const Handle& h) = 0;  // forget its workers' calls too
    virtual size_t NumInFlight(const Handle& h) const = 0;
    virtual size_t NumPending() const = 0;
  };
  template <typename R>
  struct Channel : ChannelBase {
    explicit Channel(int limit) : manager({}, MakeOptions(limit)) {}
    static typename AsyncRequestsManager<Worker, R>::Options MakeOptions(int limit) {
      typename AsyncRequestsManager<Worker, R>::Options o;
      o.max_remote_requests_in_flight_per_worker = limit;
      return o;
    }
    void Add(const Handle& h) override { manager.AddWorkers(h); }
    void Drop(const Handle& h) override { manager.RemoveWorkers(h, true); }
    size_t NumInFlight(const Handle& h) const override { return manager.NumInFlight(h); }
    size_t NumPending() const override {
      return manager.GetStatistics().num_pending_inflight_requests;
    }
    AsyncRequestsManager<Worker, R> manager;
  };

  template <typename R>
  Channel<R>& ChannelFor() {
    auto& slot = channels_[std::type_index(typeid(R))];
    if (!slot) {
      auto channel = std::make_unique<Channel<R>>(options_.max_requests_in_flight_per_worker);
      for (const auto& [id, r] : remotes_) channel->Add(r.handle);
      slot = std::move(channel);
    }
    return static_cast<Channel<R>&>(*slot);
  }

  size_t InFlight(const Handle& h) const {
    size_t n = 0;
    for (const auto& [type, channel] : channels_) n += channel->NumInFlight(h);
    return n;
  }

  void Install(int id, Handle handle) {
    id_by_actor_[handle.Binary()] = id;
    for (auto& [type, channel] : channels_) channel->Add(handle);
    remotes_[id].handle = std::move(handle);
  }

  // Kills the actor (best effort: it may be dead already) and forgets its calls.
  void Uninstall(const Handle& handle) {
    try {
      handle.Kill();
    } catch (const std::exception&) {
    }
    for (auto& [type, channel] : channels_) channel->Drop(handle);
    id_by_actor_.erase(handle.Binary());
  }

  std::vector<int> Select(const ForeachOptions& o) const {
    std::vector<int> ids;
    if (o.remote_worker_ids) {
      for (int id : *o.remote_worker_ids) {
        if (!remotes_.count(id)) {
          throw std::invalid_argument("no remote worker with id " + std::to_string(id));
        }
      }
      ids = *o.remote_worker_ids;
    } else {
      for (const auto& [id, r] : remotes_) ids.push_back(id);
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    if (o.healthy_only) std::erase_if(ids, [&](int id) { return !remotes_.at(id).healthy; });
    return ids;
  }

  // Runs the method on the local worker with the arguments a remote call would
  // get: an ObjectRef<P> for a parameter of type P is resolved (ray::Get) first.
  template <typename M, typename... Args>
  internal::MethodResult<M> CallLocal(M method, const Args&... args) {
    static_assert(sizeof...(Args) == ::ray::internal::FunctionTraits<M>::kArity,
                  "wrong number of arguments");
    return CallLocal(method, std::index_sequence_for<Args...>(), args...);
  }
  template <typename M, size_t... I, typename... As>
  internal::MethodResult<M> CallLocal(M method, std::index_sequence<I...>, const As&... args) {
    using Params = typename ::ray::internal::FunctionTraits<M>::Args;
    Worker* self = local_.get();
    if constexpr (std::is_void_v<internal::MethodReturn<M>>) {
      (self->*method)(internal::LocalArg<std::tuple_element_t<I, Params>>(args)...);
      return {};
    } else {
      return (self->*method)(internal::LocalArg<std::tuple_element_t<I, Params>>(args)...);
    }
  }

  // The remote half of ForeachWorker: submit(handle) starts one call, returning
  // its ObjectRef<R>.
  template <typename R, typename Submit>
  void CallRemotes(const ForeachOptions& o, Submit submit, std::vector<WorkerResult<R>>* out) {
    auto answers = FanOut(
        Select(o), [&](const Handle& h) { return submit(h).Binary(); },
        [](const std::string& id) { return internal::Fetch(ObjectRef<R>(id)); }, o.timeout);
    Collect(std::move(answers), o.mark_healthy, out);
  }

  // Starts one call per worker id (start: handle -> object id), waits up to
  // `timeout` for all of them, and returns the finished ones (finish: object id ->
  // outcome) in `ids` order.
  template <typename Start, typename Finish>
  auto FanOut(const std::vector<int>& ids, Start start, Finish finish,
              std::optional<Millis> timeout)
      -> std::vector<std::pair<int, decltype(finish(std::string()))>> {
    std::vector<std::pair<int, decltype(finish(std::string()))>> out;
    std::vector<ObjectRef<msgpack::type::nil_t>> refs;
    for (int id : ids) refs.emplace_back(start(remotes_.at(id).handle));
    if (refs.empty()) return out;
    auto waited = Wait(refs, refs.size(), internal::WaitMillis(timeout));
    size_t next = 0;
    for (size_t i = 0; i < refs.size() && next < waited.ready.size(); ++i) {
      if (!(waited.ready[next] == refs[i])) continue;
      ++next;
      out.emplace_back(ids[i], finish(refs[i].Binary()));
    }
    return out;
  }

  std::vector<std::pair<int, std::optional<RemoteError>>> Probe(const std::vector<int>& ids) {
    const HealthProbe<Worker>& probe = spec_.probe;
    return FanOut(
        ids, [&](const Handle& h) { return probe.Start(h); },
        [&](const std::string& id) { return probe.Check(id); }, options_.health_probe_timeout);
  }

  // Accounts for finished remote calls (health, restarts), appends the successes to
  // `out`, then raises the first failure unless failures are ignored.
  template <typename R>
  void Collect(std::vector<std::pair<int, CallResult<R>>> answers, bool mark_healthy,
               std::vector<WorkerResult<R>>* out) {
    std::vector<RemoteError> errors;
    for (auto& [id, result] : answers) {
      if (!result.ok()) {
        MarkUnhealthy(id, *result.error);
        errors.push_back(*result.error);
        continue;
      }
      if (mark_healthy && !remotes_.at(id).healthy) MarkHealthy(id);
      out->push_back(WorkerResult<R>{id, std::move(*result.value)});
    }
    RaiseUnlessIgnored(errors);
  }

  void RaiseUnlessIgnored(const std::vector<RemoteError>& errors) const {
    if (errors.empty()) return;
    if (options_.ignore_worker_failures || options_.recreate_failed_workers) return;
    errors.front().Rethrow();
  }

  void MarkUnhealthy(int id, const RemoteError& error) {
    Remote& r = remotes_.at(id);
    r.healthy = false;
    r.lost = error.worker_lost();
    for (auto& [type, channel] : channels_) channel->Drop(r.handle);
    for (auto& [type, channel] : channels_) channel->Add(r.handle);
  }

  void MarkHealthy(int id) {
    Remote& r = remotes_.at(id);
    r.healthy = true;
    r.lost = false;
    ++restarts_;
    restored_.insert(id);
  }

  Spec spec_;
  Options options_;
  std::unique_ptr<Worker> local_;
  std::map<int, Remote> remotes_;                     // by id
  std::unordered_map<std::string, int> id_by_actor_;  // actor id -> worker id
  int next_id_ = 1;
  int restarts_ = 0;
  std::set<int> restored_;  // restored since the last probe
  std::map<std::type_index, std::unique_ptr<ChannelBase>> channels_;
};

}  // namespace ray::rllib
