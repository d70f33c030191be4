// Ray's microbenchmark set (python/ray/_private/ray_perf.py and
// ray_client_microbenchmark.py), metric for metric: Ray's names (as its release
// results spell them), bodies, sizes, client counts and multipliers. Two bodies need
// a word, because a call here does less than Ray's call of the same name:
// - A put sends the object to the store and returns; Ray's returns once the store
//   holds it. So the put metrics end each measurement by asking the store whether it
//   holds the last put (on the same connection, answered after every put before it):
//   a measurement counts only puts the store has.
// - A process keeps the small objects it put or fetched, and answers a repeated Get
//   from memory; Ray's Get of a store object asks the store each time. So the get
//   metrics Get objects another process made, each once: the first Get asks the
//   store. The objects are made off the clock.
// The easier variants (cached Get, one-way put, ...) are in extra_metrics.cc.

#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "metric.h"
#include "remote.h"

namespace ray::bench {

std::string SmallValue() { return "ok"; }

std::vector<ray::ObjectRef<int>> CreateObjectContainingRef() {
  std::vector<ray::ObjectRef<int>> refs;
  for (int i = 0; i < 10000; ++i) refs.push_back(ray::Put(1));
  return refs;
}

std::vector<ray::ObjectRef<int>> PutSmallObjects(int n) {
  std::vector<ray::ObjectRef<int>> refs;
  for (int i = 0; i < n; ++i) refs.push_back(ray::Put(0));
  return refs;
}

namespace {

// Returns once the store holds `last` (and with it every put this process sent
// before it); throws if it does not.
void AwaitStored(const ray::ObjectRef<int>& last) {
  if (!ray::ObjectInLocalStore(last.Binary())) {
    throw ray::RayException("microbenchmark: the store does not hold put " + last.ID());
  }
}

// Ray's do_put_small: 100 small puts, held by the store when it returns.
int DoPutSmall() {
  ray::ObjectRef<int> last;
  for (int i = 0; i < 100; ++i) last = ray::Put(0);
  AwaitStored(last);
  return 0;
}

// A zeroed buffer of `bytes`, as numpy's zeros makes it (calloc: pages not touched).
ray::Blob Zeros(size_t bytes) {
  std::shared_ptr<void> memory(std::calloc(bytes, 1), std::free);
  if (!memory) throw ray::RayException("microbenchmark: out of memory");
  return ray::Blob(static_cast<const char*>(memory.get()), bytes, memory);
}

// Ray's do_put: 10 puts of np.zeros(10 * 1024 * 1024, dtype=np.int64) (80 MiB); a
// shared-memory put returns once the store holds it.
int DoPut() {
  for (int i = 0; i < 10; ++i) ray::Put(Zeros(size_t{10} * 1024 * 1024 * 8));
  return 0;
}

// Ray's work (and async_actor_work): n calls spread over the actors, then a Get of
// them all.
template <typename A>
int CallSpread(const std::vector<ray::ActorHandle<A>>& actors, int n) {
  std::vector<ray::ObjectRef<std::string>> refs;
  for (int i = 0; i < n; ++i) refs.push_back(actors[i % actors.size()].Task(&A::SmallValue).Remote());
  ray::Get(refs);
  return 0;
}
int Work(std::vector<ray::ActorHandle<Actor>> actors, int n) { return CallSpread(actors, n); }
int AsyncWork(std::vector<ray::ActorHandle<AsyncActor>> actors, int n) {
  return CallSpread(actors, n);
}

// Ray's Client.small_value_batch: n calls of SmallValue to each server, then a Get.
template <typename A>
int CallEach(const std::vector<ray::ActorHandle<A>>& servers, int n) {
  std::vector<ray::ObjectRef<std::string>> refs;
  for (auto& s : servers) {
    for (int i = 0; i < n; ++i) refs.push_back(s.Task(&A::SmallValue).Remote());
  }
  ray::Get(refs);
  return 0;
}

// Ray's placement_group_create_removal: `n` groups of one {"custom": 0.001} bundle,
// waited for (30 s each at most), then removed.
void PlacementGroupCreateRemoval(int n) {
  std::vector<ray::PlacementGroup> groups;
  for (int i = 0; i < n; ++i) {
    groups.push_back(ray::CreatePlacementGroup({{{"custom", 0.001}}}));
  }
  for (auto& g : groups) {
    if (!g.Wait(30)) throw ray::RayException("microbenchmark: placement group not ready in 30 s");
  }
  for (auto& g : groups) ray::RemovePlacementGroup(g.GetID());
}

template <typename T>
void GetBatch(const std::function<ray::ObjectRef<T>()>& submit, int n) {
  std::vector<ray::ObjectRef<T>> refs;
  refs.reserve(n);
  for (int i = 0; i < n; ++i) refs.push_back(submit());
  ray::Get(refs);
}

template <typename A = Actor>
std::vector<ray::ActorHandle<A>> Actors(int n, int max_concurrency = 1) {
  std::vector<ray::ActorHandle<A>> actors;
  for (int i = 0; i < n; ++i) {
    auto creator = ray::Actor(A::Create);
    if (max_concurrency > 1) creator.SetMaxConcurrency(max_concurrency);
    actors.push_back(creator.Remote());
  }
  return actors;
}

// 1:1 calls from the driver to one new actor: one at a time (batch 0) or `batch` then
// a Get of them all; call(actor, i) makes the i-th.
template <typename A, typename Call>
Prepared OneToOne(int batch, int max_concurrency, Call call) {
  auto actor = std::make_shared<ray::ActorHandle<A>>(Actors<A>(1, max_concurrency)[0]);
  Prepared p = JustCall([actor, batch, call] {
    if (batch == 0) {
      ray::Get(call(*actor, 0));
    } else {
      int i = 0;
      GetBatch<std::string>([&] { return call(*actor, i++); }, batch);
    }
  });
  p.done = [actor] { actor->Kill(); };
  return p;
}
Prepared OneToOne(int batch, int max_concurrency) {
  return OneToOne<Actor>(batch, max_concurrency, [](ray::ActorHandle<Actor>& a, int) {
    return a.Task(&Actor::SmallValue).Remote();
  });
}

// Servers and Clients (Ray's 1:n and n:n with arg): actors and clients live together.
struct Fleet {
  std::vector<ray::ActorHandle<Actor>> servers;
  std::vector<ray::ActorHandle<Client>> clients;
  void Kill() {
    KillAll(clients);
    KillAll(servers);
  }
};

// Each client's `method`(n) at once; counts n calls per server (Ray's n * servers).
Prepared ClientsCall(std::shared_ptr<Fleet> fleet, int (Client::*method)(int), int n) {
  Prepared p = JustCall([fleet, method, n] {
    std::vector<ray::ObjectRef<int>> refs;
    for (auto& c : fleet->clients) refs.push_back(c.Task(method).Remote(n));
    ray::Get(refs);
  });
  p.done = [fleet] { fleet->Kill(); };
  p.per_call = static_cast<double>(n) * fleet->servers.size();
  return p;
}

MetricDef Missing(std::string name, std::string why) {
  return MetricDef{std::move(name), MetricDef::Kind::kRay, 1, nullptr, std::move(why)};
}

const char* kNoOutOfScopeCallbacks =
    "no API runs a callback when an object's last reference is dropped (Ray's "
    "CoreWorker.add_object_out_of_scope_callback)";
const char* kNoRayClient =
    "no Ray Client (a driver proxied through the head over gRPC); ray::Init attaches a "
    "full driver instead";

}  // namespace

int Actor::SmallValueBatch(int n) {
  GetBatch<std::string>([] { return ray::Task(bench::SmallValue).Remote(); }, n);
  return 0;
}

int Client::SmallValueBatch(int n) { return CallEach(servers_, n); }

int AsyncClient::SmallValueBatch(int n) { return CallEach(servers_, n); }

int Client::SmallValueBatchArg(int n) {
  auto x = ray::Put(0);
  std::vector<ray::ObjectRef<std::string>> refs;
  for (auto& s : servers_) {
    for (int i = 0; i < n; ++i) refs.push_back(s.Task(&Actor::SmallValueArg).Remote(x));
  }
  ray::Get(refs);
  return 0;
}

RAY_REMOTE(SmallValue, CreateObjectContainingRef, PutSmallObjects, DoPutSmall, DoPut, Work,
           Actor::Create, &Actor::SmallValue, &Actor::SmallValueArg, &Actor::SmallValueBatch,
           Client::Create, &Client::SmallValueBatch, &Client::SmallValueBatchArg, AsyncWork,
           AsyncActor::Create, &AsyncActor::SmallValue, &AsyncActor::SmallValueWithArg,
           AsyncClient::Create, &AsyncClient::SmallValueBatch);

std::vector<MetricDef> RayMetrics() {
  using Kind = MetricDef::Kind;
  std::vector<MetricDef> m;
  auto add = [&](std::string name, double per_call, std::function<Prepared(const Machine&)> make) {
    m.push_back(MetricDef{std::move(name), Kind::kRay, per_call, std::move(make), ""});
  };

  // Ray: value = ray.put(0); ray.get(value), a store round trip each time. Here: the
  // first Get of each of 20,000 objects a task put (made off the clock).
  add("single_client_get_calls_Plasma_Store", 1, [](const Machine&) {
    auto pool = std::make_shared<std::vector<ray::ObjectRef<int>>>();
    auto next = std::make_shared<size_t>(0);
    Prepared p = JustCall([pool, next] { ray::Get((*pool)[(*next)++]); });
    p.body.prepare = [pool, next] {
      if (*next < pool->size()) return;
      pool->clear();
      *pool = *ray::Get(ray::Task(PutSmallObjects).Remote(20000));
      *next = 0;
    };
    return p;
  });
  // Ray: ray.put(0), returning once stored. Here: puts, the measurement ending when
  // the store holds the last.
  add("single_client_put_calls_Plasma_Store", 1, [](const Machine&) {
    auto last = std::make_shared<ray::ObjectRef<int>>(ray::Put(0));
    Prepared p = JustCall([last] { *last = ray::Put(0); });
    p.body.settle = [last] { AwaitStored(*last); };
    return p;
  });
  add("multi_client_put_calls_Plasma_Store", 1000, [](const Machine&) {
    return JustCall([] { GetBatch<int>([] { return ray::Task(DoPutSmall).Remote(); }, 10); });
  });
  // np.zeros(100 * 1024 * 1024, dtype=np.int64): 800 MiB, counted as Ray does (0.8).
  add("single_client_put_gigabytes", 8 * 0.1, [](const Machine&) {
    auto arr = std::make_shared<ray::Blob>(Zeros(size_t{100} * 1024 * 1024 * 8));
    return JustCall([arr] { ray::Put(*arr); });
  });
  add("single_client_tasks_and_get_batch", 1, [](const Machine&) {
    return JustCall([] { GetBatch<std::string>([] { return ray::Task(SmallValue).Remote(); }, 1000); });
  });
  add("multi_client_put_gigabytes", 10 * 8 * 0.1, [](const Machine&) {
    return JustCall([] { GetBatch<int>([] { return ray::Task(DoPut).Remote(); }, 10); });
  });
  // Ray: ray.get(obj_containing_ref) of one task result, a store round trip and 10,000
  // refs decoded each time. Here: the first Get of a fresh result (made off the clock).
  add("single_client_get_object_containing_10k_refs", 1, [](const Machine&) {
    auto fresh = std::make_shared<std::optional<ray::ObjectRef<std::vector<ray::ObjectRef<int>>>>>();
    Prepared p = JustCall([fresh] { ray::Get(**fresh); });
    p.body.prepare = [fresh] {
      *fresh = ray::Task(CreateObjectContainingRef).Remote();
      ray::Wait(std::vector{**fresh}, 1);
    };
    return p;
  });
  m.push_back(Missing("single_client_object_out_of_scope_callback_registration",
                      kNoOutOfScopeCallbacks));
  m.push_back(Missing("object_out_of_scope_callback_fire_1k_batch", kNoOutOfScopeCallbacks));
  // 1,000 tasks, then 1,000 Waits for one more of those not ready yet.
  add("single_client_wait_1k_refs", 1, [](const Machine&) {
    return JustCall([] {
      std::vector<ray::ObjectRef<std::string>> not_ready;
      for (int i = 0; i < 1000; ++i) not_ready.push_back(ray::Task(SmallValue).Remote());
      for (int i = 0; i < 1000; ++i) not_ready = ray::Wait(not_ready, 1).unready;
    });
  });
  add("single_client_tasks_sync", 1, [](const Machine&) {
    return JustCall([] { ray::Get(ray::Task(SmallValue).Remote()); });
  });
  add("single_client_tasks_async", 1000, [](const Machine&) {
    return JustCall([] { GetBatch<std::string>([] { return ray::Task(SmallValue).Remote(); }, 1000); });
  });
  // 4 actors, each submitting 10,000 tasks and getting them.
  add("multi_client_tasks_async", 10000 * 4, [](const Machine&) {
    auto actors = std::make_shared<std::vector<ray::ActorHandle<Actor>>>(Actors(4));
    Prepared p = JustCall([actors] {
      std::vector<ray::ObjectRef<int>> refs;
      for (auto& a : *actors) refs.push_back(a.Task(&Actor::SmallValueBatch).Remote(10000));
      ray::Get(refs);
    });
    p.done = [actors] { KillAll(*actors); };
    return p;
  });
  add("1_1_actor_calls_sync", 1, [](const Machine&) { return OneToOne(0, 1); });
  add("1_1_actor_calls_async", 1000, [](const Machine&) { return OneToOne(1000, 1); });
  add("1_1_actor_calls_concurrent", 1000, [](const Machine&) { return OneToOne(1000, 16); });
  // One Client calling cores/2 actors, 5,000 calls each.
  add("1_n_actor_calls_async", 5000, [](const Machine& machine) {
    auto fleet = std::make_shared<Fleet>();
    fleet->servers = Actors(machine.HalfCores());
    fleet->clients.push_back(ray::Actor(Client::Create).Remote(fleet->servers));
    return ClientsCall(fleet, &Client::SmallValueBatch, 5000);
  });
  // 4 tasks, each making 5,000 calls spread over cores/2 actors.
  add("n_n_actor_calls_async", 4 * 5000, [](const Machine& machine) {
    auto actors = std::make_shared<std::vector<ray::ActorHandle<Actor>>>(Actors(machine.HalfCores()));
    Prepared p = JustCall([actors] {
      GetBatch<int>([&] { return ray::Task(Work).Remote(*actors, 5000); }, 4);
    });
    p.done = [actors] { KillAll(*actors); };
    return p;
  });
  // cores/2 Clients, each with one actor of its own, 1,000 calls with a ref argument.
  add("n_n_actor_calls_with_arg_async", 1000, [](const Machine& machine) {
    auto fleet = std::make_shared<Fleet>();
    fleet->servers = Actors(machine.HalfCores());
    for (auto& s : fleet->servers) {
      fleet->clients.push_back(ray::Actor(Client::Create).Remote(std::vector{s}));
    }
    return ClientsCall(fleet, &Client::SmallValueBatchArg, 1000);
  });
  // Ray's AsyncActor (async methods, ray/async.h), as the actor metrics above.
  auto small_value = [](ray::ActorHandle<AsyncActor>& a, int) {
    return a.Task(&AsyncActor::SmallValue).Remote();
  };
  add("1_1_async_actor_calls_sync", 1,
      [small_value](const Machine&) { return OneToOne<AsyncActor>(0, 1, small_value); });
  add("1_1_async_actor_calls_async", 1000,
      [small_value](const Machine&) { return OneToOne<AsyncActor>(1000, 1, small_value); });
  add("1_1_async_actor_calls_with_args_async", 1000, [](const Machine&) {
    return OneToOne<AsyncActor>(1000, 1, [](ray::ActorHandle<AsyncActor>& a, int i) {
      return a.Task(&AsyncActor::SmallValueWithArg).Remote(i);
    });
  });
  // One client calling cores/2 async actors, 5,000 calls each.
  add("1_n_async_actor_calls_async", 5000, [](const Machine& machine) {
    auto servers = std::make_shared<std::vector<ray::ActorHandle<AsyncActor>>>(
        Actors<AsyncActor>(machine.HalfCores()));
    auto client = std::make_shared<ray::ActorHandle<AsyncClient>>(
        ray::Actor(AsyncClient::Create).Remote(*servers));
    Prepared p = JustCall([client] {
      ray::Get(client->Task(&AsyncClient::SmallValueBatch).Remote(5000));
    });
    p.done = [servers, client] {
      client->Kill();
      KillAll(*servers);
    };
    p.per_call = 5000.0 * servers->size();
    return p;
  });
  // 4 tasks, each making 5,000 calls spread over cores/2 async actors.
  add("n_n_async_actor_calls_async", 4 * 5000, [](const Machine& machine) {
    auto actors = std::make_shared<std::vector<ray::ActorHandle<AsyncActor>>>(
        Actors<AsyncActor>(machine.HalfCores()));
    Prepared p = JustCall([actors] {
      GetBatch<int>([&] { return ray::Task(AsyncWork).Remote(*actors, 5000); }, 4);
    });
    p.done = [actors] { KillAll(*actors); };
    return p;
  });
  // Ray starts a cluster with {"custom": 100} for it; `ray microbenchmark` does too.
  add("placement_group_create/removal", 100, [](const Machine&) {
    if (ray::ClusterResources()["custom"] < 0.1) {
      throw ray::RayException(
          "the cluster has no 'custom' resource of at least 0.1 (ray microbenchmark "
          "starts its cluster with {\"custom\": 100} unless --resources is given)");
    }
    return JustCall([] { PlacementGroupCreateRemoval(100); });
  });
  // Ray Client's set (ray_client_microbenchmark.py and Ray's published results).
  for (const char* name :
       {"client__get_calls", "client__put_calls", "client__remote_put_calls",
        "client__put_gigabytes", "client__tasks_and_get_batch", "client__tasks_and_put_batch",
        "client__1_1_actor_calls_sync", "client__1_1_actor_calls_async",
        "client__1_1_actor_calls_concurrent"}) {
    m.push_back(Missing(name, kNoRayClient));
  }
  return m;
}

}  // namespace ray::bench
