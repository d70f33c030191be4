// The job of many_tasks_bench: submits N trivial tasks, keeping every ref, then gets
// the results in chunks and checks each one. Prints what only the driver can see as
// key=value lines: the two phases' times and this process's resident size before
// and at its peak (the driver is the `ray submit` process itself).
//
//   args: [--tasks N] (default 1,000,000) [--chunk N] (refs per Get, default 10,000)

#include <ray/api.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "tests/test_util/proc_memory.h"

namespace {

int64_t PlusOne(int64_t i) { return i + 1; }

RAY_REMOTE(PlusOne);

double SecondsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

RAY_MAIN(int argc, char** argv) {
  int64_t tasks = 1000000, chunk = 10000;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--tasks") {
      tasks = std::stoll(argv[i + 1]);
    } else if (flag == "--chunk") {
      chunk = std::max<int64_t>(1, std::stoll(argv[i + 1]));
    } else {
      std::fprintf(stderr, "many_tasks: unknown argument '%s'\n", argv[i]);
      return 2;
    }
  }
  using ray::test_util::SelfKib;
  std::printf("driver_rss_start_kib=%lld\n", static_cast<long long>(SelfKib("VmRSS")));

  auto start = std::chrono::steady_clock::now();
  std::vector<ray::ObjectRef<int64_t>> refs;
  refs.reserve(tasks);
  for (int64_t i = 0; i < tasks; ++i) refs.push_back(ray::Task(PlusOne).Remote(i));
  std::printf("submit_s=%.3f\n", SecondsSince(start));
  std::printf("driver_rss_submitted_kib=%lld\n", static_cast<long long>(SelfKib("VmRSS")));

  for (int64_t begin = 0; begin < tasks; begin += chunk) {
    const int64_t end = std::min(tasks, begin + chunk);
    std::vector<ray::ObjectRef<int64_t>> part(refs.begin() + begin, refs.begin() + end);
    auto values = ray::Get(part);
    for (int64_t i = begin; i < end; ++i) {
      if (*values[i - begin] != i + 1) {
        std::fprintf(stderr, "task %lld returned %lld, expected %lld\n", static_cast<long long>(i),
                     static_cast<long long>(*values[i - begin]), static_cast<long long>(i + 1));
        return 1;
      }
    }
  }
  std::printf("total_s=%.3f\n", SecondsSince(start));
  std::printf("driver_peak_kib=%lld\n", static_cast<long long>(SelfKib("VmHWM")));
  return 0;
}
