// The job of the launcher's tests: work that needs more than the head has.
//   spread N SECONDS   N one-CPU tasks of SECONDS each; prints nodes=<distinct nodes>
//   big                one task needing {"CPU": 2}; prints big_node=<its node>

#include <ray/api.h>

#include <chrono>
#include <cstdio>
#include <set>
#include <string>
#include <thread>

std::string Hold(double seconds) {
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  return ray::GetNodeId();
}
RAY_REMOTE(Hold);

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
  std::fprintf(stderr, "usage: spread N SECONDS | big\n");
  return 2;
}
