// The goal "an idle worker's RSS is under 20 MiB", measured with the real `ray`
// binary: a head node of its own (`ray start --head`), whose raylet prestarts one
// worker (`ray _worker`) per CPU. Once they are idle (all up and their resident size
// steady), each worker's VmRSS is read; then again after a job has run tasks on them
// (a worker that ran a task has loaded the job's plugin). RssAnon, the private part
// of VmRSS, shows how much is the worker's own memory rather than shared library
// pages.
//
//   build-dir/tests/bench/idle_worker_bench [--cpus N]   (prestarted workers, default 4)

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tests/bench/bench_util.h"

namespace ray::bench {
namespace {

constexpr double kGoalKib = 20 * 1024;

// Max and median VmRSS of the workers, with their median RssAnon, as table rows.
void Report(const std::string& when, const std::vector<pid_t>& workers) {
  std::vector<double> rss, anon;
  for (pid_t w : workers) {
    rss.push_back(StatusKib(w, "VmRSS").value_or(0));
    anon.push_back(StatusKib(w, "RssAnon").value_or(0));
  }
  const double max = *std::max_element(rss.begin(), rss.end());
  std::printf("  %s, %zu workers:\n", when.c_str(), workers.size());
  PrintRow("  max VmRSS", Mib(max), "< 20 MiB", max < kGoalKib);
  PrintRow("  median VmRSS", Mib(Median(rss)), "< 20 MiB", Median(rss) < kGoalKib);
  PrintRow("  median RssAnon (private part)", Mib(Median(anon)));
}

void Run(int cpus) {
  HeadNode node({"--num-cpus", std::to_string(cpus)});
  PrintHeader("Idle worker RSS (" + std::to_string(cpus) + " CPUs, one prestarted worker each)");
  Report("prestarted, no job yet", AwaitIdleWorkers(node.raylet_pid(), cpus));
  // Enough tasks that every worker runs some.
  node.Submit(MANY_TASKS_PLUGIN, {"--tasks", "10000"});
  Report("after a job ran 10,000 tasks on them", AwaitIdleWorkers(node.raylet_pid(), cpus));
}

}  // namespace
}  // namespace ray::bench

int main(int argc, char** argv) {
  return ray::bench::MainWithCount(argc, argv, "--cpus", 4, ray::bench::Run);
}
