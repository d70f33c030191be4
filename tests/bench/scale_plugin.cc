// The job of scale_bench.sh, on a cluster of many small nodes: prints key=value lines.
//   tasks: TASKS trivial tasks, submitted and got in chunks of 10,000 (the rate), and
//          1,000 tasks of 10 ms each (how many nodes they ran on);
//   actors: ACTORS actors of 0.01 CPU each, created and each called once (the rate),
//          how many nodes host them, then killed;
//   broadcast: one BROADCAST_MIB object put here, then read by one task pinned to each
//          other node (resource "node<i>"): the time of one such read alone, then of
//          all at once.
//
//   args: NODES TASKS ACTORS BROADCAST_MIB

#include <ray/api.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

namespace {

int64_t PlusOne(int64_t i) { return i + 1; }

std::string Busy10ms() {
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(10);
  while (std::chrono::steady_clock::now() < end) {
  }
  return ray::GetNodeId();
}

// The blob's size, once read on this node.
int64_t Size(ray::Blob blob) { return static_cast<int64_t>(blob.size()); }

class Member {
 public:
  static Member* Create() { return new Member(); }
  std::string Where() { return ray::GetNodeId(); }
};

RAY_REMOTE(PlusOne, Busy10ms, Size, Member::Create, &Member::Where);

double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

void Tasks(int64_t tasks) {
  auto start = std::chrono::steady_clock::now();
  for (int64_t begin = 0; begin < tasks; begin += 10000) {
    std::vector<ray::ObjectRef<int64_t>> refs;
    for (int64_t i = begin; i < std::min(tasks, begin + 10000); ++i) {
      refs.push_back(ray::Task(PlusOne).Remote(i));
    }
    auto values = ray::Get(refs);
    for (size_t k = 0; k < values.size(); ++k) {
      if (*values[k] != begin + static_cast<int64_t>(k) + 1) {
        std::fprintf(stderr, "task %lld returned a wrong value\n", static_cast<long long>(begin + k));
        std::exit(1);
      }
    }
  }
  double s = SecondsSince(start);
  std::printf("tasks=%lld\ntasks_s=%.2f\ntasks_per_s=%.0f\n", static_cast<long long>(tasks), s,
              tasks / s);
  std::vector<ray::ObjectRef<std::string>> busy;
  for (int i = 0; i < 1000; ++i) busy.push_back(ray::Task(Busy10ms).Remote());
  std::set<std::string> nodes;
  for (const auto& n : ray::Get(busy)) nodes.insert(*n);
  std::printf("busy_tasks_nodes=%zu\n", nodes.size());
  std::fflush(stdout);
}

void Actors(int count) {
  auto start = std::chrono::steady_clock::now();
  std::vector<ray::ActorHandle<Member>> actors;
  for (int i = 0; i < count; ++i) {
    actors.push_back(ray::Actor(Member::Create).SetResource("CPU", 0.01).Remote());
  }
  std::vector<ray::ObjectRef<std::string>> where;
  for (auto& a : actors) where.push_back(a.Task(&Member::Where).Remote());
  std::set<std::string> nodes;
  for (const auto& n : ray::Get(where)) nodes.insert(*n);
  double s = SecondsSince(start);
  std::printf("actors=%d\nactors_s=%.2f\nactors_per_s=%.0f\nactor_nodes=%zu\n", count, s, count / s,
              nodes.size());
  std::fflush(stdout);
  for (auto& a : actors) ray::KillActor(a);
}

void Broadcast(int nodes, int64_t mib) {
  auto blob = ray::Put(ray::Blob(std::string(static_cast<size_t>(mib) << 20, 'b')));
  auto read_on = [&](int i) {
    return ray::Task(Size).SetResource("node" + std::to_string(i), 0.01).Remote(blob);
  };
  auto start = std::chrono::steady_clock::now();
  auto check = [&](int64_t size) {
    if (size == mib << 20) return;
    std::fprintf(stderr, "a node read %lld bytes of the %lld MiB object\n",
                 static_cast<long long>(size), static_cast<long long>(mib));
    std::exit(1);
  };
  check(*ray::Get(read_on(1)));
  double one = SecondsSince(start);
  start = std::chrono::steady_clock::now();
  std::vector<ray::ObjectRef<int64_t>> reads;
  for (int i = 2; i < nodes; ++i) reads.push_back(read_on(i));
  for (const auto& size : ray::Get(reads)) check(*size);
  double all = SecondsSince(start);
  std::printf("broadcast_mib=%lld\nbroadcast_one_s=%.2f\nbroadcast_nodes=%d\nbroadcast_all_s=%.2f\n",
              static_cast<long long>(mib), one, nodes - 2, all);
  std::fflush(stdout);
}

}  // namespace

RAY_MAIN(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: scale_plugin NODES TASKS ACTORS BROADCAST_MIB\n");
    return 2;
  }
  const int nodes = std::stoi(argv[1]);
  if (std::stoll(argv[2]) > 0) Tasks(std::stoll(argv[2]));
  if (std::stoi(argv[3]) > 0) Actors(std::stoi(argv[3]));
  if (nodes > 2 && std::stoll(argv[4]) > 0) Broadcast(nodes, std::stoll(argv[4]));
  return 0;
}
