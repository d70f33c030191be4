// The job the rllib_execution suite runs: `ray run execution_plugin.so <case>`. Each
// case drives AsyncRequestsManager or EnvRunnerGroup over real actors of a toy class
// and returns 0 when every check passes; a failed check prints "CHECK FAILED: ..."
// on stderr and makes the job exit 1.

#include <ray/api.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "runtime/rllib/execution/async_requests_manager.h"
#include "runtime/rllib/execution/env_runner_group.h"
#include "tests/test_util/plugin_check.h"

namespace {

using ray::rllib::AsyncRequestsManager;
using ray::rllib::CallResult;
using ray::rllib::EnvRunnerGroup;
using ray::rllib::HealthProbe;
using ray::rllib::RemoteError;
using ray::rllib::WorkerResult;
using std::chrono::milliseconds;

// ---------------------------------------------------------------------------
// The toy worker.

class Toy {
 public:
  // index < 0: the constructor fails.
  static Toy* Create(int index) {
    if (index < 0) throw std::runtime_error("toy constructor failed on purpose");
    return new Toy(index);
  }
  std::string Ping() { return "pong"; }
  int Index() { return index_; }
  int Pid() { return static_cast<int>(::getpid()); }
  // Counts as a call; returns `x` after `ms` milliseconds.
  int Echo(int x, int ms) {
    ++calls_;
    std::this_thread::sleep_for(milliseconds(ms));
    return x;
  }
  int Add(int a, int b) {
    ++calls_;
    std::this_thread::sleep_for(milliseconds(500));
    return a + b;
  }
  std::string Tag(int ms) {
    ++calls_;
    std::this_thread::sleep_for(milliseconds(ms));
    return "tag-" + std::to_string(index_);
  }
  int Calls() { return calls_; }
  void Touch() { ++calls_; }
  // Throws on the worker whose index is `index`; the others return their index.
  int ThrowIf(int index) {
    if (index == index_) throw std::runtime_error("toy " + std::to_string(index_) + " threw");
    return index_;
  }
  // Kills the worker process on the worker whose index is `index`.
  int CrashIf(int index) {
    if (index == index_) ::_exit(1);
    return index_;
  }
  void SetWeights(std::vector<float> w) { weights_ = std::move(w); }
  std::vector<float> GetWeights() { return weights_; }
  // Keeps which object the weights came in, to tell a shared put from copies.
  void SetWeightsRef(ray::ObjectRef<std::vector<float>> ref) {
    weights_ = *ray::Get(ref);
    weights_id_ = ref.ID();
  }
  std::string WeightsId() { return weights_id_; }

 private:
  explicit Toy(int index) : index_(index) {}
  int index_;
  int calls_ = 0;
  std::vector<float> weights_;
  std::string weights_id_;
};

RAY_REMOTE(Toy::Create, &Toy::Ping, &Toy::Index, &Toy::Pid, &Toy::Echo, &Toy::Add, &Toy::Tag,
           &Toy::Calls, &Toy::Touch, &Toy::ThrowIf, &Toy::CrashIf, &Toy::SetWeights,
           &Toy::GetWeights, &Toy::SetWeightsRef, &Toy::WeightsId);

using Handle = ray::ActorHandle<Toy>;
using Group = EnvRunnerGroup<Toy>;

// ---------------------------------------------------------------------------
// Helpers.

int64_t NowMs() {
  return std::chrono::duration_cast<milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}


std::vector<Handle> StartToys(int n) {
  std::vector<Handle> out;
  for (int i = 0; i < n; ++i) out.push_back(ray::Actor(Toy::Create).Remote(i));
  return out;
}

// Waits until every toy has been constructed.
void AwaitToys(const std::vector<Handle>& toys) {
  for (const auto& t : toys) ray::Get(t.Task(&Toy::Ping).Remote());
}

int Calls(const Handle& h) { return *ray::Get(h.Task(&Toy::Calls).Remote()); }

// ---------------------------------------------------------------------------
// AsyncRequestsManager.

using IntManager = AsyncRequestsManager<Toy, int>;

IntManager::Submit EchoCall(int x, int ms) {
  return [x, ms](const Handle& h) { return h.Task(&Toy::Echo).Remote(x, ms); };
}

// The results of `worker` in a GetReady() answer (empty if absent).
template <typename R>
std::vector<CallResult<R>> ResultsOf(
    const std::vector<typename AsyncRequestsManager<Toy, R>::WorkerResults>& ready,
    const Handle& worker) {
  for (const auto& g : ready) {
    if (g.worker.Binary() == worker.Binary()) return g.results;
  }
  return {};
}

std::vector<int> Values(const std::vector<CallResult<int>>& results) {
  std::vector<int> out;
  for (const auto& r : results) {
    CHECK_THAT(r.ok() && r.value, "a failed call: " << (r.error ? r.error->message : "no value"));
    out.push_back(*r.value);
  }
  return out;
}

size_t TotalResults(const std::vector<IntManager::WorkerResults>& ready) {
  size_t n = 0;
  for (const auto& g : ready) n += g.results.size();
  return n;
}

std::vector<size_t> InFlight(const IntManager& m, const std::vector<Handle>& workers) {
  std::vector<size_t> out;
  for (const auto& w : workers) out.push_back(m.NumInFlight(w));
  return out;
}

// Catalog 3.1 tests 1, 2, 7, 10, 18: round robin, the limit, no queue, stats.
void ManagerRoundRobin() {
  auto toys = StartToys(3);
  AwaitToys(toys);
  IntManager m(toys, {.max_remote_requests_in_flight_per_worker = 2});
  std::vector<size_t> expected_order{0, 1, 2, 0, 1, 2};
  for (int i = 0; i < 6; ++i) {
    auto before = InFlight(m, toys);
    CHECK_THAT(m.Call(EchoCall(i, 400)), "call " << i << " was refused");
    auto after = InFlight(m, toys);
    size_t w = expected_order[i];
    CHECK_THAT(after[w] == before[w] + 1,
               "call " << i << " did not go to worker " << w << ": in flight " << Str(after));
  }
  CHECK_THAT(InFlight(m, toys) == (std::vector<size_t>{2, 2, 2}), Str(InFlight(m, toys)));
  CHECK_THAT(!m.Call(EchoCall(99, 0)), "a seventh call over the limit was accepted");
  CHECK_THAT(m.CallOnAllAvailable(EchoCall(99, 0)) == 0, "CallOnAllAvailable at the limit");
  auto stats = m.GetStatistics();
  CHECK_THAT(stats.num_pending_inflight_requests == 6, stats.num_pending_inflight_requests);
  CHECK_THAT(stats.num_workers == 3, stats.num_workers);
  CHECK_THAT(stats.num_available_workers == 0, stats.num_available_workers);
  CHECK_THAT(stats.num_queued_requests == 0, stats.num_queued_requests);

  auto ready = m.GetReady(std::nullopt);  // waits for every pending call
  CHECK_THAT(TotalResults(ready) == 6, TotalResults(ready));
  CHECK_THAT(ready.size() == 3, ready.size());
  CHECK_THAT(Values(ResultsOf<int>(ready, toys[0])) == (std::vector<int>{0, 3}),
             Str(Values(ResultsOf<int>(ready, toys[0]))));
  CHECK_THAT(Values(ResultsOf<int>(ready, toys[1])) == (std::vector<int>{1, 4}), "worker 1");
  CHECK_THAT(Values(ResultsOf<int>(ready, toys[2])) == (std::vector<int>{2, 5}), "worker 2");
  CHECK_THAT(m.GetStatistics().num_pending_inflight_requests == 0, "pending after GetReady");
  CHECK_THAT(m.GetStatistics().num_available_workers == 3, "available after GetReady");
  CHECK_THAT(m.GetReady(std::nullopt).empty(), "a second GetReady repeated results");
  int executed = 0;
  for (const auto& t : toys) executed += Calls(t);
  CHECK_THAT(executed == 6, "the refused calls ran: " << executed << " calls executed");

  // Cap 2, all idle: 3, 3, then 0.
  CHECK_THAT(m.CallOnAllAvailable(EchoCall(7, 300)) == 3, "first CallOnAllAvailable");
  CHECK_THAT(m.CallOnAllAvailable(EchoCall(8, 300)) == 3, "second CallOnAllAvailable");
  CHECK_THAT(m.CallOnAllAvailable(EchoCall(9, 300)) == 0, "third CallOnAllAvailable");
  CHECK_THAT(m.GetStatistics().num_pending_inflight_requests == 6, "pending after fan-out");
  CHECK_THAT(TotalResults(m.GetReady(std::nullopt)) == 6, "fan-out results");
}

// Catalog 3.1 tests 3, 4, 5, 6, 17, 20: targeted calls, unknown and absent workers,
// skipping busy workers, the cursor after a removal.
void ManagerTargeting() {
  auto toys = StartToys(3);
  AwaitToys(toys);
  IntManager m(toys, {.max_remote_requests_in_flight_per_worker = 2});
  // Worker 0 full: a call aimed at it is refused, not moved elsewhere.
  CHECK_THAT(m.Call(toys[0], EchoCall(1, 300)) && m.Call(toys[0], EchoCall(2, 300)), "fill w0");
  CHECK_THAT(!m.Call(toys[0], EchoCall(3, 0)), "a call to a full worker was accepted");
  CHECK_THAT(InFlight(m, toys) == (std::vector<size_t>{2, 0, 0}), Str(InFlight(m, toys)));
  // Round robin skips the busy worker and moves past the one it chose.
  CHECK_THAT(m.Call(EchoCall(4, 300)), "round robin with w0 full");
  CHECK_THAT(InFlight(m, toys) == (std::vector<size_t>{2, 1, 0}), Str(InFlight(m, toys)));
  CHECK_THAT(m.Call(EchoCall(5, 300)), "next round robin call");
  CHECK_THAT(InFlight(m, toys) == (std::vector<size_t>{2, 1, 1}), Str(InFlight(m, toys)));

  // Unknown worker: invalid_argument, nothing submitted.
  auto stranger = ray::Actor(Toy::Create).Remote(9);
  ExpectThrow<std::invalid_argument>([&] { m.Call(stranger, EchoCall(6, 0)); }, "unknown worker");
  CHECK_THAT(m.GetStatistics().num_pending_inflight_requests == 4, "after the unknown worker");
  CHECK_THAT(Calls(stranger) == 0, "the unknown worker ran a call");
  CHECK_THAT(TotalResults(m.GetReady(std::nullopt)) == 4, "results");

  // The cursor after removing the last worker while it points there.
  IntManager cursor(toys, {.max_remote_requests_in_flight_per_worker = 1});
  CHECK_THAT(cursor.Call(EchoCall(1, 300)) && cursor.Call(EchoCall(2, 300)), "w0, w1");
  CHECK_THAT(InFlight(cursor, toys) == (std::vector<size_t>{1, 1, 0}), "cursor now at w2");
  cursor.RemoveWorkers(toys[2]);  // single handle
  CHECK_THAT(cursor.workers().size() == 2, cursor.workers().size());
  cursor.GetReady(std::nullopt);
  CHECK_THAT(cursor.Call(EchoCall(3, 0)), "call after removal");
  CHECK_THAT(InFlight(cursor, toys) == (std::vector<size_t>{0, 1, 0}),
             "the cursor should move to index len-1 (w1): " << Str(InFlight(cursor, toys)));
  cursor.GetReady(std::nullopt);

  // No workers: false, not an exception.
  IntManager empty(std::vector<Handle>{});
  CHECK_THAT(!empty.Call(EchoCall(1, 0)), "a call with no workers");
  CHECK_THAT(empty.CallOnAllAvailable(EchoCall(1, 0)) == 0, "fan-out with no workers");
  CHECK_THAT(empty.GetReady().empty(), "GetReady with nothing pending");
  cursor.RemoveWorkers(cursor.workers());
  CHECK_THAT(!cursor.Call(EchoCall(1, 0)), "a call after removing every worker");

  // AddWorkers is idempotent and appends; single handle and list.
  IntManager grow({toys[0]});
  grow.AddWorkers(toys[0]);
  grow.AddWorkers({toys[0], toys[1]});
  CHECK_THAT(grow.workers().size() == 2, "duplicates added: " << grow.workers().size());
  CHECK_THAT(grow.workers()[1].Binary() == toys[1].Binary(), "not appended at the end");
  CHECK_THAT(grow.Call(toys[1], EchoCall(1, 0)), "a new worker is schedulable");
  grow.GetReady(std::nullopt);

  ExpectThrow<std::invalid_argument>(
      [&] { IntManager bad(toys, {.max_remote_requests_in_flight_per_worker = 0}); },
      "a limit of 0");
}

// Catalog 3.1 tests 8, 9, 11, 12, 13: polling, freed slots, order, refs, timeouts.
void ManagerGetReady() {
  auto toys = StartToys(3);
  AwaitToys(toys);
  IntManager m(toys, {.max_remote_requests_in_flight_per_worker = 2});
  auto add = [](const Handle& h) { return h.Task(&Toy::Add).Remote(1, 2); };
  CHECK_THAT(m.CallOnAllAvailable(add) == 3, "Add on every worker");
  CHECK_THAT(m.GetReady().empty(), "the default GetReady polls: results of 500 ms tasks at once");
  std::this_thread::sleep_for(milliseconds(1200));
  auto ready = m.GetReady();
  CHECK_THAT(ready.size() == 3, "workers with results after 1.2 s: " << ready.size());
  for (const auto& g : ready) {
    CHECK_THAT(Values(g.results) == std::vector<int>{3}, Str(Values(g.results)));
  }
  // Slots are free again.
  for (const auto& t : toys) CHECK_THAT(m.Call(t, EchoCall(0, 0)), "slot not freed");
  m.GetReady(std::nullopt);

  // Per-worker results in submission order.
  IntManager order({toys[0]}, {.max_remote_requests_in_flight_per_worker = 5});
  for (int i = 0; i < 5; ++i) order.Call(EchoCall(i, 50));
  auto all = order.GetReady(std::nullopt);
  CHECK_THAT(all.size() == 1 && Values(all[0].results) == (std::vector<int>{0, 1, 2, 3, 4}),
             "order");

  // A bounded wait returns what finished by then.
  int64_t start = NowMs();
  CHECK_THAT(m.Call(EchoCall(1, 1000)), "slow call");
  CHECK_THAT(m.GetReady(milliseconds(300)).empty(), "a 1 s call finished within 300 ms");
  int64_t waited = NowMs() - start;
  CHECK_THAT(waited >= 250 && waited < 900, "GetReady(300 ms) took " << waited << " ms");
  // nullopt waits for all of them.
  CHECK_THAT(m.Call(EchoCall(2, 200)), "second call");
  auto both = m.GetReady(std::nullopt);
  CHECK_THAT(TotalResults(both) == 2, "GetReady(nullopt) returned " << TotalResults(both));

  // Options::wait_timeout as the default of GetReady().
  IntManager blocking(toys, {.wait_timeout = std::nullopt});
  blocking.Call(EchoCall(5, 300));
  CHECK_THAT(TotalResults(blocking.GetReady()) == 1, "wait_timeout nullopt did not block");

  // Refs instead of values.
  IntManager refs(toys, {.return_object_refs = true});
  CHECK_THAT(refs.Call(toys[1], EchoCall(42, 0)), "refs call");
  auto got = refs.GetReady(std::nullopt);
  CHECK_THAT(got.size() == 1 && got[0].results.size() == 1, "one ref");
  const auto& r = got[0].results[0];
  CHECK_THAT(r.ok() && !r.value, "the value was fetched with return_object_refs");
  CHECK_THAT(*ray::Get(r.ref) == 42, "the ref's value");
}

// Catalog 3.1 tests 14, 15, 18: removal with and without dropping in-flight calls.
void ManagerRemoval() {
  auto toys = StartToys(3);
  AwaitToys(toys);
  IntManager m(toys, {.max_remote_requests_in_flight_per_worker = 2});
  CHECK_THAT(
      m.CallOnAllAvailable(EchoCall(1, 300)) == 3 && m.CallOnAllAvailable(EchoCall(2, 300)) == 3,
      "fill");
  CHECK_THAT(m.GetStatistics().num_pending_inflight_requests == 6, "6 pending");

  // Dropping: pending falls by w0's calls at once, and they never come back.
  m.RemoveWorkers({toys[0]}, /*remove_in_flight_requests=*/true);
  CHECK_THAT(m.GetStatistics().num_pending_inflight_requests == 4,
             "pending after dropping w0: " << m.GetStatistics().num_pending_inflight_requests);
  CHECK_THAT(m.NumInFlight(toys[0]) == 0, "w0 still has calls in flight");
  CHECK_THAT(m.GetStatistics().num_workers == 2, "workers after removal");

  // Keeping: w1 is unschedulable but its calls are still returned under w1.
  m.RemoveWorkers(toys[1]);
  CHECK_THAT(m.GetStatistics().num_pending_inflight_requests == 4, "kept calls not counted");
  CHECK_THAT(m.NumInFlight(toys[1]) == 2, "w1 in flight " << m.NumInFlight(toys[1]));
  ExpectThrow<std::invalid_argument>([&] { m.Call(toys[1], EchoCall(0, 0)); },
                                     "a call to a removed worker");
  auto ready = m.GetReady(std::nullopt);
  CHECK_THAT(ResultsOf<int>(ready, toys[0]).empty(), "results of a dropped call came back");
  CHECK_THAT(Values(ResultsOf<int>(ready, toys[1])) == (std::vector<int>{1, 2}),
             "the removed worker's calls: " << Str(Values(ResultsOf<int>(ready, toys[1]))));
  CHECK_THAT(Values(ResultsOf<int>(ready, toys[2])) == (std::vector<int>{1, 2}), "w2");
  CHECK_THAT(m.GetStatistics().num_pending_inflight_requests == 0, "pending at the end");
  // Round robin now only reaches w2.
  CHECK_THAT(m.Call(EchoCall(3, 300)) && m.Call(EchoCall(4, 300)), "two calls on w2");
  CHECK_THAT(!m.Call(EchoCall(5, 0)), "only w2 is left and it is full");
  CHECK_THAT(InFlight(m, toys) == (std::vector<size_t>{0, 0, 2}), Str(InFlight(m, toys)));
  m.GetReady(std::nullopt);
}

// Catalog 3.1 test 19: a failed call frees its slot and names its worker; a dead
// worker's error does not cost the other workers' results.
void ManagerErrors() {
  auto toys = StartToys(3);
  AwaitToys(toys);
  IntManager m(toys, {.max_remote_requests_in_flight_per_worker = 1});
  CHECK_THAT(
      m.CallOnAllAvailable([](const Handle& h) { return h.Task(&Toy::ThrowIf).Remote(1); }) == 3,
      "ThrowIf on all");
  auto ready = m.GetReady(std::nullopt);
  CHECK_THAT(TotalResults(ready) == 3, TotalResults(ready));
  auto failed = ResultsOf<int>(ready, toys[1]);
  CHECK_THAT(failed.size() == 1 && !failed[0].ok(), "w1's call should have failed");
  CHECK_THAT(failed[0].error->kind == RemoteError::Kind::kTaskError, failed[0].error->message);
  CHECK_THAT(failed[0].error->message.find("toy 1 threw") != std::string::npos,
             failed[0].error->message);
  ExpectThrow<ray::TaskError>([&] { failed[0].error->Rethrow(); }, "Rethrow");
  CHECK_THAT(Values(ResultsOf<int>(ready, toys[0])) == std::vector<int>{0}, "w0 result");
  CHECK_THAT(Values(ResultsOf<int>(ready, toys[2])) == std::vector<int>{2}, "w2 result");
  CHECK_THAT(m.NumInFlight(toys[1]) == 0, "the failed call kept its slot");
  CHECK_THAT(m.Call(toys[1], EchoCall(5, 0)), "w1 is schedulable again");
  CHECK_THAT(Values(ResultsOf<int>(m.GetReady(std::nullopt), toys[1])) == std::vector<int>{5},
             "w1 works");

  // A worker process that dies.
  CHECK_THAT(
      m.CallOnAllAvailable([](const Handle& h) { return h.Task(&Toy::CrashIf).Remote(2); }) == 3,
      "CrashIf on all");
  ready = m.GetReady(std::nullopt);
  auto dead = ResultsOf<int>(ready, toys[2]);
  CHECK_THAT(dead.size() == 1 && !dead[0].ok() && dead[0].error->worker_lost(),
             "w2 should be reported lost");
  CHECK_THAT(Values(ResultsOf<int>(ready, toys[0])) == std::vector<int>{0}, "w0 after the crash");
  CHECK_THAT(m.NumInFlight(toys[2]) == 0, "the dead worker kept its slot");
}

// ---------------------------------------------------------------------------
// EnvRunnerGroup.

Group::Spec ToySpec() {
  Group::Spec spec;
  spec.create_remote = [](int id) { return ray::Actor(Toy::Create).Remote(id); };
  spec.create_local = [] { return std::unique_ptr<Toy>(Toy::Create(0)); };
  spec.probe = HealthProbe<Toy>(&Toy::Ping);
  return spec;
}

template <typename R>
std::vector<int> Ids(const std::vector<WorkerResult<R>>& results) {
  std::vector<int> out;
  for (const auto& r : results) out.push_back(r.worker_id);
  return out;
}

template <typename R>
std::vector<R> ValuesOf(const std::vector<WorkerResult<R>>& results) {
  std::vector<R> out;
  for (const auto& r : results) out.push_back(r.value);
  return out;
}

// Catalog 3.2 tests 1, 2, 3, 25 and ids: construction, growth, removal, validation.
void GroupConstruction() {
  {
    Group g(ToySpec(), {.num_workers = 0, .local_worker = false});
    CHECK_THAT(g.local_worker() != nullptr, "no remotes: a local worker is forced");
    CHECK_THAT(g.num_healthy_workers() == 1 && g.num_remote_workers() == 0, "counts");
  }
  Group g(ToySpec(), {.num_workers = 3});
  CHECK_THAT(g.HealthyWorkerIds() == (std::vector<int>{1, 2, 3}), Str(g.HealthyWorkerIds()));
  CHECK_THAT(g.num_healthy_workers() == 4 && g.num_remote_workers() == 3, "counts");
  CHECK_THAT(g.local_worker() && g.local_worker()->Index() == 0, "local index");
  auto added = g.AddWorkers(2);
  CHECK_THAT(added == (std::vector<int>{4, 5}), Str(added));
  auto indexes = g.ForeachWorker(&Toy::Index);
  CHECK_THAT(Ids(indexes) == (std::vector<int>{0, 1, 2, 3, 4, 5}), Str(Ids(indexes)));
  CHECK_THAT(ValuesOf(indexes) == (std::vector<int>{0, 1, 2, 3, 4, 5}), Str(ValuesOf(indexes)));

  Handle two = *g.remote_worker(2);
  g.RemoveWorkers({2});
  CHECK_THAT(g.HealthyWorkerIds() == (std::vector<int>{1, 3, 4, 5}), Str(g.HealthyWorkerIds()));
  CHECK_THAT(!g.remote_worker(2), "worker 2 is still there");
  ExpectThrow<ray::ActorDiedError>([&] { ray::Get(two.Task(&Toy::Ping).Remote()); },
                                   "a removed worker is killed");
  CHECK_THAT(g.AddWorkers(1) == std::vector<int>{6}, "ids are never reused");
  CHECK_THAT(g.num_remote_workers() == 5, g.num_remote_workers());
  g.Stop();
  CHECK_THAT(g.num_remote_workers() == 0 && g.local_worker() == nullptr, "after Stop");

  // A remote constructor that throws: its error, with its original type and message.
  Group::Spec broken = ToySpec();
  broken.create_remote = [](int id) { return ray::Actor(Toy::Create).Remote(id == 2 ? -1 : id); };
  auto e = ExpectThrow<ray::ActorDiedError>(
      [&] { Group bad(broken, {.num_workers = 3, .local_worker = false}); }, "validation");
  CHECK_THAT(std::string(e.what()).find("toy constructor failed on purpose") != std::string::npos,
             e.what());
  Group tolerant(broken, {.num_workers = 3, .local_worker = false, .ignore_worker_failures = true});
  CHECK_THAT(tolerant.HealthyWorkerIds() == (std::vector<int>{1, 3}),
             "a worker that failed validation: " << Str(tolerant.HealthyWorkerIds()));

  Group::Spec no_local = ToySpec();
  no_local.create_local = nullptr;
  ExpectThrow<std::invalid_argument>([&] { Group bad(no_local, {.num_workers = 1}); },
                                     "a local worker without create_local");
}

// Catalog 3.2 tests 5, 6, 7, 9: order, selection, fire and forget, timeouts.
void GroupForeach() {
  Group g(ToySpec(), {.num_workers = 3});
  auto all = g.ForeachWorker(&Toy::Index);
  CHECK_THAT(Ids(all) == (std::vector<int>{0, 1, 2, 3}), Str(Ids(all)));
  CHECK_THAT(ValuesOf(all) == (std::vector<int>{0, 1, 2, 3}), Str(ValuesOf(all)));
  auto echo = g.ForeachWorker(&Toy::Echo, 7, 0);
  CHECK_THAT(ValuesOf(echo) == (std::vector<int>{7, 7, 7, 7}), Str(ValuesOf(echo)));

  auto remote_only = g.ForeachWorker({.local_worker = false}, &Toy::Index);
  CHECK_THAT(Ids(remote_only) == (std::vector<int>{1, 2, 3}), Str(Ids(remote_only)));
  auto some = g.ForeachWorker({.local_worker = false, .remote_worker_ids = std::vector<int>{3, 1}},
                              &Toy::Index);
  CHECK_THAT(Ids(some) == (std::vector<int>{1, 3}), "selected ids in id order: " << Str(Ids(some)));
  auto none = g.ForeachWorker({.remote_worker_ids = std::vector<int>{}}, &Toy::Index);
  CHECK_THAT(Ids(none) == std::vector<int>{0},
             "an empty selection is no remote: " << Str(Ids(none)));
  ExpectThrow<std::invalid_argument>(
      [&] { g.ForeachWorker({.remote_worker_ids = std::vector<int>{9}}, &Toy::Index); },
      "an unknown id");
  auto voids = g.ForeachWorker(&Toy::Touch);  // a void method
  CHECK_THAT(Ids(voids) == (std::vector<int>{0, 1, 2, 3}), Str(Ids(voids)));

  // Fire and forget: only the local result, at once; the remote calls still run.
  int64_t start = NowMs();
  auto quick = g.ForeachWorker({.timeout = milliseconds(0)}, &Toy::Echo, 1, 300);
  CHECK_THAT(Ids(quick) == std::vector<int>{0}, "timeout 0: " << Str(Ids(quick)));
  CHECK_THAT(NowMs() - start < 600, "timeout 0 took " << NowMs() - start << " ms (local 300)");
  auto calls = g.ForeachWorker({.local_worker = false}, &Toy::Calls);
  CHECK_THAT(ValuesOf(calls) == (std::vector<int>{3, 3, 3}),
             "the fire-and-forget calls did not run: " << Str(ValuesOf(calls)));

  // A slow worker is left out of a bounded call, and stays healthy.
  g.ForeachWorker(
      {.local_worker = false, .remote_worker_ids = std::vector<int>{2}, .timeout = milliseconds(0)},
      &Toy::Echo, 0, 1500);
  start = NowMs();
  auto bounded = g.ForeachWorker({.timeout = milliseconds(300)}, &Toy::Index);
  CHECK_THAT(Ids(bounded) == (std::vector<int>{0, 1, 3}), "bounded: " << Str(Ids(bounded)));
  CHECK_THAT(NowMs() - start < 1200, "the bounded call took " << NowMs() - start << " ms");
  CHECK_THAT(g.HealthyWorkerIds() == (std::vector<int>{1, 2, 3}), "a timeout is not a failure");
}

// Catalog 3.2 tests 13, 14, 15: the async fan-out.
void GroupAsync() {
  Group g(ToySpec(), {.num_workers = 3, .local_worker = false, .ignore_worker_failures = true});
  CHECK_THAT(g.ForeachWorkerAsync(&Toy::Echo, 1, 400) == 3, "first async round");
  CHECK_THAT(g.ForeachWorkerAsync(&Toy::Echo, 2, 400) == 3, "second async round");
  CHECK_THAT(g.ForeachWorkerAsync(&Toy::Echo, 3, 0) == 0, "over the limit: dropped, not queued");
  CHECK_THAT(g.ForeachWorkerAsync(&Toy::Tag, 0) == 0, "the limit counts calls of every type");
  CHECK_THAT(g.num_in_flight_async_reqs() == 6, g.num_in_flight_async_reqs());
  CHECK_THAT(g.FetchReadyAsyncReqs<int>().empty(), "a poll right away returned results");
  auto done = g.FetchReadyAsyncReqs<int>(std::nullopt);
  CHECK_THAT(Ids(done) == (std::vector<int>{1, 1, 2, 2, 3, 3}), Str(Ids(done)));
  CHECK_THAT(ValuesOf(done) == (std::vector<int>{1, 2, 1, 2, 1, 2}), Str(ValuesOf(done)));
  CHECK_THAT(g.num_in_flight_async_reqs() == 0, g.num_in_flight_async_reqs());
  CHECK_THAT(g.FetchReadyAsyncReqs<int>(milliseconds(100)).empty(), "results returned twice");
  auto calls = g.ForeachWorker(&Toy::Calls);
  CHECK_THAT(ValuesOf(calls) == (std::vector<int>{2, 2, 2}),
             "dropped calls ran: " << Str(ValuesOf(calls)));

  // Another result type is fetched on its own.
  CHECK_THAT(g.ForeachWorkerAsync({.remote_worker_ids = std::vector<int>{2}}, &Toy::Tag, 0) == 1,
             "Tag on 2");
  CHECK_THAT(g.ForeachWorkerAsync(&Toy::Echo, 4, 0) == 3, "Echo on all");
  auto tags = g.FetchReadyAsyncReqs<std::string>(std::nullopt);
  CHECK_THAT(tags.size() == 1 && tags[0].worker_id == 2 && tags[0].value == "tag-2", "tags");
  CHECK_THAT(g.FetchReadyAsyncReqs<int>(std::nullopt).size() == 3, "echo results");

  // Unhealthy workers are skipped, and their async calls dropped.
  CHECK_THAT(g.ForeachWorkerAsync(&Toy::Echo, 5, 300) == 3, "before the failure");
  auto survivors = g.ForeachWorker(&Toy::ThrowIf, 3);
  CHECK_THAT(Ids(survivors) == (std::vector<int>{1, 2}), Str(Ids(survivors)));
  CHECK_THAT(g.HealthyWorkerIds() == (std::vector<int>{1, 2}), Str(g.HealthyWorkerIds()));
  CHECK_THAT(g.num_in_flight_async_reqs() == 2,
             "worker 3's async call was not dropped: " << g.num_in_flight_async_reqs());
  CHECK_THAT(g.ForeachWorkerAsync(&Toy::Echo, 6, 0) == 2, "async skips the unhealthy worker");
  auto fetched = g.FetchReadyAsyncReqs<int>(std::nullopt);
  CHECK_THAT(Ids(fetched) == (std::vector<int>{1, 1, 2, 2}), Str(Ids(fetched)));
}

// Catalog 3.2 tests 18, 19: one put, every target gets the same ref.
void GroupSyncWeights() {
  Group g(ToySpec(), {.num_workers = 3});
  std::vector<float> w{1.5f, -2.0f, 3.25f};
  g.SyncWeights(&Toy::SetWeights, w);  // fire and forget
  auto got = g.ForeachWorker({.local_worker = false}, &Toy::GetWeights);
  CHECK_THAT(got.size() == 3, got.size());
  for (const auto& r : got)
    CHECK_THAT(r.value == w, "worker " << r.worker_id << ": " << Str(r.value));
  CHECK_THAT(g.local_worker()->GetWeights().empty(), "the local worker was changed");
  // A ref passed to ForeachWorker reaches the local worker as its value.
  std::vector<float> w3{4.0f, 5.0f};
  g.ForeachWorker(&Toy::SetWeights, ray::Put(w3));
  CHECK_THAT(g.local_worker()->GetWeights() == w3, Str(g.local_worker()->GetWeights()));
  g.SyncWeights(&Toy::SetWeights, w, {.timeout = std::nullopt});

  std::vector<float> w2{9.0f};
  g.SyncWeights(&Toy::SetWeights, w2,
                {.to_worker_ids = std::vector<int>{2}, .timeout = std::nullopt});
  got = g.ForeachWorker({.local_worker = false}, &Toy::GetWeights);
  CHECK_THAT(got[0].value == w && got[1].value == w2 && got[2].value == w, "only worker 2");

  auto ref = g.SyncWeights(&Toy::SetWeightsRef, w2, {.timeout = std::nullopt});
  auto ids = g.ForeachWorker({.local_worker = false}, &Toy::WeightsId);
  for (const auto& r : ids) {
    CHECK_THAT(r.value == ref.ID(), "worker " << r.worker_id << " got object " << r.value
                                              << ", not the one put " << ref.ID());
  }
  got = g.ForeachWorker({.local_worker = false}, &Toy::GetWeights);
  for (const auto& r : got) CHECK_THAT(r.value == w2, "worker " << r.worker_id);
}

// Catalog 3.2 tests 8, 10: a worker process that dies is marked unhealthy, then
// recreated under its id, and the restart is counted.
void GroupRecreate() {
  Group g(ToySpec(), {.num_workers = 3, .local_worker = false, .recreate_failed_workers = true});
  auto pids = g.ForeachWorker(&Toy::Pid);
  CHECK_THAT(g.ForeachWorkerAsync(&Toy::Echo, 1, 2000) == 3, "async calls before the crash");
  auto answered = g.ForeachWorker(&Toy::CrashIf, 2);  // failures are not raised
  CHECK_THAT(Ids(answered) == (std::vector<int>{1, 3}), Str(Ids(answered)));
  CHECK_THAT(g.HealthyWorkerIds() == (std::vector<int>{1, 3}), Str(g.HealthyWorkerIds()));
  CHECK_THAT(g.num_healthy_workers() == 2 && g.num_remote_workers() == 3, "counts");
  CHECK_THAT(g.num_in_flight_async_reqs() == 2, "the dead worker's async call was kept");
  CHECK_THAT(g.num_remote_worker_restarts() == 0, "restarts before the probe");

  auto restored = g.ProbeUnhealthyWorkers();
  CHECK_THAT(restored == std::vector<int>{2}, "restored " << Str(restored));
  CHECK_THAT(g.num_remote_worker_restarts() == 1, g.num_remote_worker_restarts());
  CHECK_THAT(g.HealthyWorkerIds() == (std::vector<int>{1, 2, 3}), Str(g.HealthyWorkerIds()));
  auto after = g.ForeachWorker(&Toy::Pid);
  CHECK_THAT(after[1].worker_id == 2 && after[1].value != pids[1].value, "worker 2's process");
  CHECK_THAT(after[0].value == pids[0].value && after[2].value == pids[2].value, "others kept");
  auto two = g.ForeachWorker({.remote_worker_ids = std::vector<int>{2}}, &Toy::Index);
  CHECK_THAT(two.size() == 1 && two[0].value == 2, "the new worker has the old index");
  CHECK_THAT(g.ProbeUnhealthyWorkers().empty(), "a second probe restored again");
  CHECK_THAT(g.num_remote_worker_restarts() == 1, g.num_remote_worker_restarts());

  // Without a probe (a worker class with no cheap method, like PPO's): the
  // recreated worker counts as restored; a failed but live one stays unhealthy.
  Group::Spec spec = ToySpec();
  spec.probe = HealthProbe<Toy>();
  Group plain(spec, {.num_workers = 2, .local_worker = false, .recreate_failed_workers = true});
  plain.ForeachWorker(&Toy::CrashIf, 1);
  plain.ForeachWorker(&Toy::ThrowIf, 2);
  CHECK_THAT(plain.HealthyWorkerIds().empty(), Str(plain.HealthyWorkerIds()));
  CHECK_THAT(plain.ProbeUnhealthyWorkers() == std::vector<int>{1}, "no probe: recreated only");
  CHECK_THAT(plain.HealthyWorkerIds() == std::vector<int>{1}, Str(plain.HealthyWorkerIds()));
  auto index = plain.ForeachWorker(&Toy::Index);
  CHECK_THAT(Ids(index) == std::vector<int>{1} && index[0].value == 1, "the recreated worker");
  CHECK_THAT(plain.num_remote_worker_restarts() == 1, plain.num_remote_worker_restarts());
}

// Catalog 3.2 tests 9, 10, 11, 12: probing and mark_healthy.
void GroupProbe() {
  Group g(ToySpec(), {.num_workers = 3, .local_worker = false, .ignore_worker_failures = true});
  CHECK_THAT(g.ProbeUnhealthyWorkers().empty(), "probe with every worker healthy");
  g.ForeachWorker(&Toy::ThrowIf, 1);  // alive, but unhealthy
  CHECK_THAT(g.HealthyWorkerIds() == (std::vector<int>{2, 3}), Str(g.HealthyWorkerIds()));
  CHECK_THAT(Ids(g.ForeachWorker(&Toy::Index)) == (std::vector<int>{2, 3}), "healthy_only");
  CHECK_THAT(
      Ids(g.ForeachWorker({.healthy_only = false}, &Toy::Index)) == (std::vector<int>{1, 2, 3}),
      "healthy_only = false");
  CHECK_THAT(g.HealthyWorkerIds() == (std::vector<int>{2, 3}), "a plain success restored");
  CHECK_THAT(g.ProbeUnhealthyWorkers() == std::vector<int>{1}, "probe of a live worker");
  CHECK_THAT(g.num_remote_worker_restarts() == 1, g.num_remote_worker_restarts());
  CHECK_THAT(g.ProbeUnhealthyWorkers().empty(), "second probe");

  // A dead worker does not answer: it stays unhealthy (no recreation configured).
  g.ForeachWorker(&Toy::CrashIf, 2);
  CHECK_THAT(g.HealthyWorkerIds() == (std::vector<int>{1, 3}), Str(g.HealthyWorkerIds()));
  CHECK_THAT(g.ProbeUnhealthyWorkers().empty(), "a dead worker was restored");
  CHECK_THAT(g.HealthyWorkerIds() == (std::vector<int>{1, 3}), "after probing the dead");
  CHECK_THAT(g.num_remote_worker_restarts() == 1, g.num_remote_worker_restarts());

  // Restored by an async fetch (mark_healthy): reported by the next probe, once.
  g.ForeachWorker(&Toy::ThrowIf, 3);
  CHECK_THAT(g.HealthyWorkerIds() == std::vector<int>{1}, Str(g.HealthyWorkerIds()));
  CHECK_THAT(g.ForeachWorkerAsync({.healthy_only = false, .remote_worker_ids = std::vector<int>{3}},
                                  &Toy::Echo, 3, 0) == 1,
             "async on the unhealthy worker");
  auto fetched = g.FetchReadyAsyncReqs<int>(std::nullopt);
  CHECK_THAT(Ids(fetched) == std::vector<int>{3}, Str(Ids(fetched)));
  CHECK_THAT(g.HealthyWorkerIds() == (std::vector<int>{1, 3}), "mark_healthy fetch");
  CHECK_THAT(g.num_remote_worker_restarts() == 2, g.num_remote_worker_restarts());
  CHECK_THAT(g.ProbeUnhealthyWorkers() == std::vector<int>{3}, "the cached restore");
  CHECK_THAT(g.ProbeUnhealthyWorkers().empty(), "the cached restore came twice");

  // The sync mark_healthy option.
  g.ForeachWorker(&Toy::ThrowIf, 1);
  g.ForeachWorker({.healthy_only = false, .mark_healthy = true}, &Toy::Index);
  CHECK_THAT(g.HealthyWorkerIds() == (std::vector<int>{1, 3}), Str(g.HealthyWorkerIds()));
  CHECK_THAT(g.ProbeUnhealthyWorkers() == std::vector<int>{1}, "mark_healthy sync");
}

// Catalog 3.2 test 8 and 3.4: failures raised or ignored.
void GroupIgnoreFailures() {
  Group strict(ToySpec(), {.num_workers = 3});
  auto e = ExpectThrow<ray::TaskError>([&] { strict.ForeachWorker(&Toy::ThrowIf, 2); },
                                       "a remote exception");
  CHECK_THAT(std::string(e.what()).find("toy 2 threw") != std::string::npos, e.what());
  CHECK_THAT(strict.HealthyWorkerIds() == (std::vector<int>{1, 3}),
             "the failure was raised but not accounted: " << Str(strict.HealthyWorkerIds()));
  ExpectThrow<std::runtime_error>([&] { strict.ForeachWorker(&Toy::ThrowIf, 0); },
                                  "the local worker's exception");
  CHECK_THAT(strict.HealthyWorkerIds() == (std::vector<int>{1, 3}), "local failure and health");
  bool lost = false;
  try {
    strict.ForeachWorker(&Toy::CrashIf, 3);
  } catch (const ray::ActorDiedError&) {
    lost = true;
  } catch (const ray::WorkerCrashedError&) {
    lost = true;
  }
  CHECK_THAT(lost, "a dead worker's call was not raised as a lost worker");
  CHECK_THAT(strict.HealthyWorkerIds() == std::vector<int>{1}, Str(strict.HealthyWorkerIds()));

  // Async failures too, after accounting.
  CHECK_THAT(strict.ForeachWorkerAsync(&Toy::ThrowIf, 1) == 1, "async ThrowIf");
  ExpectThrow<ray::TaskError>([&] { strict.FetchReadyAsyncReqs<int>(std::nullopt); },
                              "an async failure");
  CHECK_THAT(strict.HealthyWorkerIds().empty(), Str(strict.HealthyWorkerIds()));
  CHECK_THAT(strict.num_healthy_workers() == 1, "only the local worker");

  Group lenient(ToySpec(), {.num_workers = 3, .ignore_worker_failures = true});
  auto results = lenient.ForeachWorker(&Toy::ThrowIf, 2);
  CHECK_THAT(Ids(results) == (std::vector<int>{0, 1, 3}), Str(Ids(results)));
  results = lenient.ForeachWorker(&Toy::CrashIf, 3);
  CHECK_THAT(Ids(results) == (std::vector<int>{0, 1}), Str(Ids(results)));
  CHECK_THAT(lenient.HealthyWorkerIds() == std::vector<int>{1}, Str(lenient.HealthyWorkerIds()));
  CHECK_THAT(lenient.ForeachWorkerAsync({.healthy_only = false}, &Toy::ThrowIf, 1) == 3, "async");
  auto fetched = lenient.FetchReadyAsyncReqs<int>(std::nullopt);
  CHECK_THAT(Ids(fetched) == std::vector<int>{2}, "async under ignore: " << Str(Ids(fetched)));
}

const std::map<std::string, std::function<void()>>& Cases() {
  static const std::map<std::string, std::function<void()>> cases{
      {"manager_round_robin", ManagerRoundRobin},
      {"manager_targeting", ManagerTargeting},
      {"manager_get_ready", ManagerGetReady},
      {"manager_removal", ManagerRemoval},
      {"manager_errors", ManagerErrors},
      {"group_construction", GroupConstruction},
      {"group_foreach", GroupForeach},
      {"group_async", GroupAsync},
      {"group_sync_weights", GroupSyncWeights},
      {"group_recreate", GroupRecreate},
      {"group_probe", GroupProbe},
      {"group_ignore_failures", GroupIgnoreFailures},
  };
  return cases;
}

}  // namespace

RAY_MAIN(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: execution_plugin.so <case>\n");
    return 2;
  }
  std::string name = argv[1];
  auto it = Cases().find(name);
  if (it == Cases().end()) {
    std::fprintf(stderr, "unknown case %s\n", name.c_str());
    return 2;
  }
  try {
    it->second();
  } catch (const CheckFailed& f) {
    std::fprintf(stderr, "CHECK FAILED in %s: %s\n", name.c_str(), f.what.c_str());
    return 1;
  }
  std::printf("CASE PASSED: %s\n", name.c_str());
  return 0;
}
