// The goal "1,000,000 tasks queued on one node complete, with driver + raylet peak
// memory under 1.5 GiB", measured with the real `ray` binary: a head node of its own
// (`ray start --head`), then `ray submit` of many_tasks_plugin, which submits every
// task before getting any result (so all of them are queued at once) and checks the
// results. The driver is the `ray submit` process and reports its own peak RSS; the
// raylet is its own process (`ray _raylet`), whose peak RSS (VmHWM) is read after the
// job while it still runs.
//
//   build-dir/tests/bench/many_tasks_bench [--tasks N] [--cpus N]
//     --tasks  tasks to queue (default 1,000,000; e.g. 100000 for a quick run)
//     --cpus   the node's CPUs (default: this machine's)

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "tests/bench/bench_util.h"

namespace ray::bench {
namespace {

constexpr double kGoalKib = 1.5 * 1024 * 1024;

// The figure of the job's "key=value" line, in KiB or seconds.
double Figure(const HeadNode::Job& job, const std::string& key) {
  std::string value = KeyValue(job.output, key);
  if (value.empty()) Fail("the job printed no " + key + ":\n" + job.output);
  return std::stod(value);
}

// 1234567 -> "1,234,567".
std::string Thousands(double x) {
  const std::string digits = std::to_string(std::llround(x));
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

void Run(long long tasks, const std::string& cpus) {
  HeadNode node(cpus.empty() ? std::vector<std::string>{}
                             : std::vector<std::string>{"--num-cpus", cpus});
  // The raylet before the job: prestarted workers up, nothing queued.
  AwaitIdleWorkers(node.raylet_pid(), 1);
  const double raylet_before = StatusKib(node.raylet_pid(), "VmRSS").value_or(0);

  auto job = node.Submit(MANY_TASKS_PLUGIN, {"--tasks", std::to_string(tasks)});
  const double raylet_peak = StatusKib(node.raylet_pid(), "VmHWM").value_or(0);
  const double raylet_after = StatusKib(node.raylet_pid(), "VmRSS").value_or(0);
  const double gcs_peak = StatusKib(node.gcs_pid(), "VmHWM").value_or(0);
  const double driver_start = Figure(job, "driver_rss_start_kib");
  const double driver_submitted = Figure(job, "driver_rss_submitted_kib");
  const double driver_peak = Figure(job, "driver_peak_kib");
  const double in_job_s = Figure(job, "total_s");

  PrintHeader(Thousands(tasks) + " trivial tasks queued on one node, then got and checked");
  // Submit() throws unless the job got and checked every result.
  PrintRow("tasks completed, results checked", Thousands(tasks), "all", true);
  PrintRow("whole job (ray submit)", fmt::format("{:.2f} s", job.ran.seconds));
  PrintRow("  submitting every task", fmt::format("{:.2f} s", Figure(job, "submit_s")));
  PrintRow("  submit + get, in the driver", fmt::format("{:.2f} s", in_job_s));
  PrintRow("tasks/s (submit + get)", Thousands(tasks / in_job_s) + "/s");
  PrintRow("driver peak RSS (VmHWM)", Mib(driver_peak));
  PrintRow("raylet peak RSS (VmHWM)", Mib(raylet_peak));
  PrintRow("driver + raylet peak RSS", Mib(driver_peak + raylet_peak), "< 1.5 GiB",
           driver_peak + raylet_peak < kGoalKib);
  std::printf("  where it goes:\n");
  PrintRow("  driver RSS: at start, all submitted",
           Mib(driver_start) + ", " + Mib(driver_submitted));
  PrintRow("  driver bytes per task (peak - start)",
           Thousands((driver_peak - driver_start) * 1024 / tasks) + " B");
  PrintRow("  raylet RSS: before the job, after it", Mib(raylet_before) + ", " + Mib(raylet_after));
  PrintRow("  raylet bytes per task (peak - before)",
           Thousands((raylet_peak - raylet_before) * 1024 / tasks) + " B");
  PrintRow("  GCS peak RSS (task events; no goal)", Mib(gcs_peak));
}

}  // namespace
}  // namespace ray::bench

int main(int argc, char** argv) {
  long long tasks = 1000000;
  std::string cpus;
  bool usable = argc % 2 == 1;
  for (int i = 1; usable && i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--tasks") {
      tasks = std::atoll(argv[i + 1]);
    } else if (flag == "--cpus") {
      cpus = argv[i + 1];
    } else {
      usable = false;
    }
  }
  if (!usable || tasks <= 0) {
    std::fprintf(stderr, "usage: %s [--tasks N] [--cpus N]\n", argv[0]);
    return 2;
  }
  try {
    ray::bench::Run(tasks, cpus);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "many_tasks_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
