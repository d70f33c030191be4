// Ray's microbenchmark set, metric for metric (python/ray/_private/ray_perf.py),
// run by `ray microbenchmark`. Each metric repeats its body for about --duration
// seconds, several times, and reports the mean rate and its spread.
//
//   args: [--duration SECONDS] [--repeat N] [--json] [--filter SUBSTRING]

#include <ray/api.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace {

int Small() { return 0; }

class Client;

class Actor {
 public:
  static Actor* Create() { return new Actor(); }
  int Small() { return 0; }
  int SmallBatch(int n) { return n; }
};

// A client that calls other actors or tasks, for the multi-client metrics.
class Client {
 public:
  static Client* Create(std::vector<ray::ActorHandle<Actor>> servers) {
    return new Client(std::move(servers));
  }
  int CallActors(int n) {
    std::vector<ray::ObjectRef<int>> refs;
    for (int i = 0; i < n; ++i) {
      refs.push_back(servers_[i % servers_.size()].Task(&Actor::Small).Remote());
    }
    ray::Get(refs);
    return n;
  }
  int SubmitTasks(int n) {
    std::vector<ray::ObjectRef<int>> refs;
    for (int i = 0; i < n; ++i) refs.push_back(ray::Task(Small).Remote());
    ray::Get(refs);
    return n;
  }

 private:
  explicit Client(std::vector<ray::ActorHandle<Actor>> s) : servers_(std::move(s)) {}
  std::vector<ray::ActorHandle<Actor>> servers_;
};

RAY_REMOTE(Small, Actor::Create, &Actor::Small, &Actor::SmallBatch, Client::Create,
           &Client::CallActors, &Client::SubmitTasks);

struct Settings {
  double duration = 1.0;
  int repeat = 3;
  bool json = false;
  std::string filter;
  // The hardware floor, measured by `ray microbenchmark` just before (0: unknown):
  // raw ZeroMQ round trips and one-way messages per second between two processes.
  double floor_roundtrips = 0;
  double floor_messages = 0;
};

struct Metric {
  std::string name;
  double mean = 0, stddev = 0;
  double floor = 0;  // what the hardware allows for it (0: no floor to compare with)
};

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Runs `body` (which does `per_call` operations) repeatedly for the duration,
// `repeat` times; returns operations per second.
Metric Measure(const Settings& s, const std::string& name, double per_call,
               const std::function<void()>& body) {
  Metric m{name};
  body();  // warm up
  std::vector<double> rates;
  for (int r = 0; r < s.repeat; ++r) {
    double start = Now(), end = start;
    long calls = 0;
    while (end - start < s.duration) {
      body();
      ++calls;
      end = Now();
    }
    rates.push_back(calls * per_call / (end - start));
  }
  for (double x : rates) m.mean += x / rates.size();
  for (double x : rates) m.stddev += (x - m.mean) * (x - m.mean) / rates.size();
  m.stddev = std::sqrt(m.stddev);
  return m;
}

void Print(const Settings& s, const Metric& m, bool first) {
  if (s.json) {
    std::printf("%s\n  {\"name\": \"%s\", \"per_second\": %.2f, \"stddev\": %.2f, \"floor\": %.2f}",
                first ? "" : ",", m.name.c_str(), m.mean, m.stddev, m.floor);
  } else if (m.floor > 0) {
    std::printf("%-45s per second %14.2f +- %-12.2f %5.1f%% of floor %.*f\n", m.name.c_str(),
                m.mean, m.stddev, 100 * m.mean / m.floor, m.floor >= 100 ? 0 : 2, m.floor);
  } else {
    std::printf("%-45s per second %14.2f +- %.2f\n", m.name.c_str(), m.mean, m.stddev);
  }
  std::fflush(stdout);
}

}  // namespace

RAY_MAIN(int argc, char** argv) {
  Settings s;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--duration" && i + 1 < argc) {
      s.duration = std::atof(argv[++i]);
    } else if (a == "--repeat" && i + 1 < argc) {
      s.repeat = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--json") {
      s.json = true;
    } else if (a == "--filter" && i + 1 < argc) {
      s.filter = argv[++i];
    } else if (a == "--floor-roundtrips" && i + 1 < argc) {
      s.floor_roundtrips = std::atof(argv[++i]);
    } else if (a == "--floor-messages" && i + 1 < argc) {
      s.floor_messages = std::atof(argv[++i]);
    } else {
      std::fprintf(stderr, "microbenchmark: unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  int cpus = std::max(1, static_cast<int>(ray::ClusterResources()["CPU"]));
  bool first = true;
  // Each metric against its floor: a sync call is at best a round trip, an async one
  // at best a one-way message, a put of bytes at best a memcpy. (A Get of a small
  // object this process put is answered in-process: no message to compare with.)
  double memcpy_gb = 0;
  auto floor_of = [&](const std::string& name) {
    if (name.find("_sync") != std::string::npos) return s.floor_roundtrips;
    if (name.find("_async") != std::string::npos) return s.floor_messages;
    if (name == "single_client_put_gigabytes") return memcpy_gb;
    return 0.0;
  };
  auto run = [&](const std::string& name, double per_call, const std::function<void()>& body) {
    if (!s.filter.empty() && name.find(s.filter) == std::string::npos) return Metric{};
    Metric m = Measure(s, name, per_call, body);
    m.floor = floor_of(name);
    Print(s, m, first);
    first = false;
    return m;
  };
  if (s.json) std::printf("[");
  if (s.floor_roundtrips > 0) {
    Print(s, Metric{"zeromq_roundtrips (hardware floor)", s.floor_roundtrips}, first);
    Print(s, Metric{"zeromq_one_way_messages (hardware floor)", s.floor_messages}, false);
    first = false;
  }

  // Objects.
  constexpr size_t kBig = 100 << 20;
  {
    std::string src(kBig, 'y'), dst(kBig, 'z');
    memcpy_gb = run("memcpy_gigabytes (hardware floor)", kBig / 1e9,
                    [&] { std::memcpy(dst.data(), src.data(), kBig); }).mean;
  }
  auto small = ray::Put(0);
  run("single_client_get_calls_Plasma_Store", 1, [&] { ray::Get(small); });
  run("single_client_put_calls_Plasma_Store", 1, [&] { ray::Put(0); });
  ray::Blob big(std::string(kBig, 'x'));
  run("single_client_put_gigabytes", kBig / 1e9, [&] { ray::Put(big); });

  // Tasks.
  run("single_client_tasks_sync", 1, [&] { ray::Get(ray::Task(Small).Remote()); });
  run("single_client_tasks_async", 1000, [&] {
    std::vector<ray::ObjectRef<int>> refs;
    for (int i = 0; i < 1000; ++i) refs.push_back(ray::Task(Small).Remote());
    ray::Get(refs);
  });
  {
    std::vector<ray::ActorHandle<Client>> clients;
    for (int i = 0; i < cpus; ++i) clients.push_back(ray::Actor(Client::Create).Remote(std::vector<ray::ActorHandle<Actor>>{}));
    run("multi_client_tasks_async", 1000.0 * cpus, [&] {
      std::vector<ray::ObjectRef<int>> refs;
      for (auto& c : clients) refs.push_back(c.Task(&Client::SubmitTasks).Remote(1000));
      ray::Get(refs);
    });
    for (auto& c : clients) c.Kill();
  }
  run("single_client_tasks_and_get_batch", 1, [&] {
    std::vector<ray::ObjectRef<int>> refs;
    for (int i = 0; i < 1000; ++i) refs.push_back(ray::Task(Small).Remote());
    ray::Get(refs);
  });
  {
    std::vector<ray::ObjectRef<int>> refs;
    for (int i = 0; i < 1000; ++i) refs.push_back(ray::Put(i));
    run("single_client_wait_1k_refs", 1, [&] { ray::Wait(refs, refs.size()); });
  }

  // Actors.
  {
    auto a = ray::Actor(Actor::Create).Remote();
    run("1_1_actor_calls_sync", 1, [&] { ray::Get(a.Task(&Actor::Small).Remote()); });
    run("1_1_actor_calls_async", 1000, [&] {
      std::vector<ray::ObjectRef<int>> refs;
      for (int i = 0; i < 1000; ++i) refs.push_back(a.Task(&Actor::Small).Remote());
      ray::Get(refs);
    });
    a.Kill();
  }
  {
    // Not one of Ray's metrics: calls of one threaded actor (max_concurrency 4; Ray's
    // C++ API has no async actors), from one client.
    auto a = ray::Actor(Actor::Create).SetMaxConcurrency(4).Remote();
    run("1_1_threaded_actor_calls_async", 1000, [&] {
      std::vector<ray::ObjectRef<int>> refs;
      for (int i = 0; i < 1000; ++i) refs.push_back(a.Task(&Actor::Small).Remote());
      ray::Get(refs);
    });
    a.Kill();
  }
  {
    std::vector<ray::ActorHandle<Actor>> actors;
    for (int i = 0; i < cpus; ++i) actors.push_back(ray::Actor(Actor::Create).Remote());
    run("1_n_actor_calls_async", 1000, [&] {
      std::vector<ray::ObjectRef<int>> refs;
      for (int i = 0; i < 1000; ++i) refs.push_back(actors[i % actors.size()].Task(&Actor::Small).Remote());
      ray::Get(refs);
    });
    std::vector<ray::ActorHandle<Client>> clients;
    for (int i = 0; i < cpus; ++i) clients.push_back(ray::Actor(Client::Create).Remote(actors));
    run("n_n_actor_calls_async", 1000.0 * cpus, [&] {
      std::vector<ray::ObjectRef<int>> refs;
      for (auto& c : clients) refs.push_back(c.Task(&Client::CallActors).Remote(1000));
      ray::Get(refs);
    });
    for (auto& c : clients) c.Kill();
    for (auto& a : actors) a.Kill();
  }
  run("actor_creations", 10, [&] {
    std::vector<ray::ActorHandle<Actor>> actors;
    std::vector<ray::ObjectRef<int>> refs;
    for (int i = 0; i < 10; ++i) {
      actors.push_back(ray::Actor(Actor::Create).Remote());
      refs.push_back(actors.back().Task(&Actor::Small).Remote());
    }
    ray::Get(refs);
    for (auto& a : actors) a.Kill();
  });
  if (s.json) std::printf("\n]\n");
  return 0;
}
