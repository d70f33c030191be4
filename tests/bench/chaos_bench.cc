// The chaos suite's job for longer, with bigger objects: prints the faults injected,
// the retries and reconstructions they caused, the results checked and the wrong ones
// (which must be 0).
//   chaos_bench [seconds=60] [--no-gcs]   (--no-gcs: the GCS is not killed)

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tests/chaos/chaos_run.h"
#include "tests/integration/ray_harness.h"

int main(int argc, char** argv) {
  ray::testing::ChaosOptions o;
  o.seconds = 60;
  o.max_object = 64ull << 20;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--no-gcs") == 0) {
      o.kill_gcs = false;
    } else {
      o.seconds = std::atoi(argv[i]);
    }
  }
  ray::testing::TempDir dir;
  auto r = ray::testing::RunChaos(o, dir.path());
  std::printf("chaos_bench: %d s, objects up to %llu MiB\n", o.seconds,
              static_cast<unsigned long long>(o.max_object >> 20));
  std::printf("  faults injected: %d workers, %d nodes, %d GCS\n", r.workers_killed,
              r.nodes_killed, r.gcs_killed);
  std::printf("  retries: %d, reconstructions: %d\n", r.retries, r.reconstructions);
  std::printf("  rounds: %ld, results checked: %ld, wrong results: %ld\n", r.rounds, r.checked,
              r.wrong);
  std::printf("  errors the job saw: tasks %ld, actor calls %ld\n", r.task_errors, r.actor_errors);
  std::printf("  ended: %s after %.1f s (exit %d)\n", r.ended ? "yes" : "NO", r.elapsed_ms / 1e3,
              r.exit_code);
  if (!r.ended || r.wrong != 0) std::fprintf(stderr, "%s\n%s\n", r.out.c_str(), r.err.c_str());
  return r.ended && r.wrong == 0 && r.exit_code == 0 ? 0 : 1;
}
