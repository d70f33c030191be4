// The goal "`ray start --head` is ready in under 1 s", measured with the real `ray`
// binary: the time from launching `ray start --head` until it returns, which it does
// once the GCS and the raylet serve, so a driver can connect. Each run then submits
// a one-task job to show the node accepts it (timed too, without a goal), and stops
// the node (`ray stop`) before the next run. Median over the runs.
//
//   build-dir/tests/bench/start_time_bench [--runs N]   (default 5)

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "tests/bench/bench_util.h"

namespace ray::bench {
namespace {

void Run(int runs) {
  std::vector<double> start, first_job;
  for (int i = 0; i < runs; ++i) {
    HeadNode node;
    auto job = node.Submit(MANY_TASKS_PLUGIN, {"--tasks", "1"});
    start.push_back(node.start_seconds());
    first_job.push_back(node.start_seconds() + job.ran.seconds);
  }
  auto seconds = [](double s) { return fmt::format("{:.3f} s", s); };
  PrintHeader(fmt::format("`ray start --head`, median of {} runs", runs));
  PrintRow("launch until it returns (cluster serves)", seconds(Median(start)), "< 1 s",
           Median(start) < 1.0);
  PrintRow("  fastest, slowest", seconds(*std::min_element(start.begin(), start.end())) + ", " +
                                     seconds(*std::max_element(start.begin(), start.end())));
  PrintRow("then a one-task job done (ray submit)", seconds(Median(first_job)));
}

}  // namespace
}  // namespace ray::bench

int main(int argc, char** argv) {
  return ray::bench::MainWithCount(argc, argv, "--runs", 5, ray::bench::Run);
}
