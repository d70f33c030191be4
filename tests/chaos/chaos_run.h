#pragma once
// The chaos suite's run: a cluster of a head and two nodes on this machine (each with
// its own --temp-dir), the chaos job on it, and faults injected while it runs: kill -9
// of random workers on any node, of one whole non-head node (raylet and workers; a new
// node joins in its place), and of the GCS (its supervisor starts it again). Used by the chaos test (short)
// and tests/bench/chaos_bench (long).

#include <cstdint>
#include <string>

namespace ray::testing {

struct ChaosOptions {
  int seconds = 20;                      // how long the job runs rounds
  uint64_t max_object = 8ull << 20;      // its largest object
  int fault_interval_ms = 1500;          // between two faults
  bool kill_node = true;                 // one non-head node dies halfway
  bool kill_gcs = true;                  // the GCS is killed once, at a third
  unsigned seed = 1;                     // which workers die
  int bound_s = 90;                      // the job must end within seconds + bound_s
};

struct ChaosReport {
  bool ended = false;  // within the bound
  int exit_code = -1;
  std::string out, err;  // the job's
  int workers_killed = 0, nodes_killed = 0, gcs_killed = 0;
  int retries = 0;          // tasks run again after their worker died (raylet logs)
  int reconstructions = 0;  // tasks run again to make objects lost with a node
  long rounds = 0, checked = 0, wrong = 0, task_errors = 0, actor_errors = 0;
  int64_t elapsed_ms = 0;
};

// Runs it in `dir` (a fresh directory) and stops the cluster afterwards.
ChaosReport RunChaos(const ChaosOptions& o, const std::string& dir);

}  // namespace ray::testing
