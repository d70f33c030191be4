// The job of the launcher's tests: work that needs more than the head has.
//   spread N SECONDS   N one-CPU tasks of SECONDS each; prints nodes=<distinct nodes>
//   big                one task needing {"CPU": 2}; prints big_node=<its node>
//   across_hosts       20 tasks on a node with resource "Worker" take a 4 MiB blob put
//                      here (its node pulls it); one makes a 4 MiB blob there (this
//                      node pulls it); prints across_hosts=ok (or what differed) and
//                      worker_node=<the tasks' node>

#include <ray/api.h>

#include <chrono>
#include <cstdio>
#include <set>
#include <string>
#include <thread>

#include "tests/test_util/blob_pattern.h"

using ray::testing::Checksum;
using ray::testing::Pattern;

std::string Hold(double seconds) {
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  return ray::GetNodeId();
}
uint64_t SumOf(ray::Blob b) { return Checksum(b.data(), b.size()); }
ray::Blob Make(uint64_t size, int seed) { return Pattern(size, seed); }
RAY_REMOTE(Hold, SumOf, Make);

RAY_MAIN(int argc, char** argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "spread" && argc > 3) {
    int n = std::stoi(argv[2]);
    double seconds = std::stod(argv[3]);
    std::vector<ray::ObjectRef<std::string>> refs;
    for (int i = 0; i < n; ++i) refs.push_back(ray::Task(Hold).Remote(seconds));
    std::set<std::string> nodes;
    for (auto& r : refs) nodes.insert(*ray::Get(r));
    std::printf("nodes=%zu\n", nodes.size());
    return 0;
  }
  if (mode == "big") {
    auto r = ray::Task(Hold).SetResource("CPU", 2).Remote(0.1);
    std::printf("big_node=%s\n", ray::Get(r)->c_str());
    return 0;
  }
  if (mode == "across_hosts") {
    constexpr uint64_t kSize = 4ull << 20;
    ray::Blob blob = Pattern(kSize, 5);
    const uint64_t expected = Checksum(blob.data(), blob.size());
    auto arg = ray::Put(blob);
    auto on_worker = [] { return ray::Task(SumOf).SetResource("Worker", 0.01); };
    std::vector<ray::ObjectRef<uint64_t>> sums;
    for (int i = 0; i < 20; ++i) sums.push_back(on_worker().Remote(arg));
    std::string result = "ok";
    for (auto& s : sums) {
      if (*ray::Get(s, std::chrono::seconds(60)) != expected) result = "wrong_sum";
    }
    auto made = ray::Task(Make).SetResource("Worker", 0.01).Remote(kSize, 9);
    auto back = ray::Get(made, std::chrono::seconds(60));
    ray::Blob want = Pattern(kSize, 9);
    if (back->size() != kSize || Checksum(back->data(), kSize) != Checksum(want.data(), kSize)) {
      result = "wrong_blob";
    }
    auto where = ray::Task(Hold).SetResource("Worker", 0.01).Remote(0.0);
    std::printf("across_hosts=%s\nworker_node=%s\ndriver_node=%s\n", result.c_str(),
                ray::Get(where)->c_str(), ray::GetNodeId().c_str());
    return 0;
  }
  std::fprintf(stderr, "usage: spread N SECONDS | big | across_hosts\n");
  return 2;
}
