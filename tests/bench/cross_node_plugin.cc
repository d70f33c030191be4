// The job of cross_node_bench.sh: Ray's task and actor-call bodies (ray_perf.py's
// single_client_tasks_sync/async and 1_1_actor_calls_sync/async), once on the
// driver's node and once pinned to another node by a custom resource, so the two
// figures of each come from the same run. Prints "<metric>_<where>=<calls/s>" lines,
// then busy_tasks_async: unpinned tasks of BUSY_US each, 1,000 at a time (more than the driver's
// node can run at once), and the share of them that ran on the other node.
//
//   args: RESOURCE [SECONDS [BUSY_US]]   RESOURCE: a resource only the other node has;
//                              SECONDS: each measurement's length (default 2);
//                              BUSY_US: each busy task's length (default 1000)
//   env BUSY_ONLY: only the busy tasks (no leases left from the measurements before)

#include <ray/api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

int Small() { return 0; }

std::string Where() { return ray::GetNodeId(); }

// A task that keeps its CPU busy for `us` microseconds; the node it ran on.
std::string Busy(int64_t us) {
  auto end = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < end) {
  }
  return ray::GetNodeId();
}

class Echo {
 public:
  static Echo* Create() { return new Echo(); }
  int Small() { return 0; }

std::string Where() { return ray::GetNodeId(); }
};

RAY_REMOTE(Small, Where, Busy, Echo::Create, &Echo::Small);

// Calls `body` (which makes `per_call` calls) for `seconds` after a warm-up of a
// fifth of that; calls per second.
double Rate(double seconds, int per_call, const std::function<void()>& body) {
  using Clock = std::chrono::steady_clock;
  auto run_for = [&](double s) {
    long calls = 0;
    auto start = Clock::now();
    while (std::chrono::duration<double>(Clock::now() - start).count() < s) {
      body();
      calls += per_call;
    }
    return calls / std::chrono::duration<double>(Clock::now() - start).count();
  };
  run_for(seconds / 5);
  return run_for(seconds);
}

}  // namespace

RAY_MAIN(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: cross_node_plugin RESOURCE [SECONDS]\n");
    return 2;
  }
  const std::string resource = argv[1];
  const double seconds = argc > 2 ? std::stod(argv[2]) : 2.0;
  const int64_t busy_us = argc > 3 ? std::stoll(argv[3]) : 1000;
  std::printf("driver_node=%s\n", ray::GetNodeId().c_str());
  for (bool remote : {false, true}) {
    if (std::getenv("BUSY_ONLY")) break;
    const char* where = remote ? "remote" : "local";
    auto task = [&] {
      auto t = ray::Task(Small);
      if (remote) t.SetResource(resource, 0.001);
      return t;
    };
    auto creator = ray::Actor(Echo::Create);
    if (remote) creator.SetResource(resource, 0.001);
    auto actor = creator.Remote();
    ray::Get(actor.Task(&Echo::Small).Remote());
    auto where_task = ray::Task(Where);
    if (remote) where_task.SetResource(resource, 0.001);
    std::printf("node_%s=%s\n", where, ray::Get(where_task.Remote())->c_str());
    std::printf("tasks_sync_%s=%.0f\n", where, Rate(seconds, 1, [&] { ray::Get(task().Remote()); }));
    std::printf("tasks_async_%s=%.0f\n", where, Rate(seconds, 1000, [&] {
                  std::vector<ray::ObjectRef<int>> refs;
                  for (int i = 0; i < 1000; ++i) refs.push_back(task().Remote());
                  ray::Get(refs);
                }));
    std::printf("actor_calls_sync_%s=%.0f\n", where,
                Rate(seconds, 1, [&] { ray::Get(actor.Task(&Echo::Small).Remote()); }));
    std::printf("actor_calls_async_%s=%.0f\n", where, Rate(seconds, 1000, [&] {
                  std::vector<ray::ObjectRef<int>> refs;
                  for (int i = 0; i < 1000; ++i) refs.push_back(actor.Task(&Echo::Small).Remote());
                  ray::Get(refs);
                }));
    std::fflush(stdout);
  }
  // Unpinned tasks of `busy_us` each, more than the driver's node has CPUs for: the
  // rest may run on the other node (leased there, or sent through the raylets). The
  // share that ran there.
  long elsewhere = 0, total = 0;
  std::printf("busy_tasks_async=%.0f\n", Rate(seconds, 1000, [&] {
                std::vector<ray::ObjectRef<std::string>> refs;
                for (int i = 0; i < 1000; ++i) refs.push_back(ray::Task(Busy).Remote(busy_us));
                for (const auto& node : ray::Get(refs)) elsewhere += *node != ray::GetNodeId();
                total += 1000;
              }));
  std::printf("busy_tasks_elsewhere=%.2f\n", total ? static_cast<double>(elsewhere) / total : 0.0);
  return 0;
}
