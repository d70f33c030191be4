// The chaos suite (label "chaos"): the mixed job on three nodes while workers, one
// node and the GCS are killed under it. Every result the job
// got must be right, and it must end within its bound. Short here; for the long run
// and its figures, see tests/bench/chaos_bench.

#include <gtest/gtest.h>

#include "tests/chaos/chaos_run.h"
#include "tests/integration/ray_harness.h"

namespace ray::testing {
namespace {

void Print(const ChaosReport& r) {
  std::printf("faults: %d workers, %d nodes, %d GCS; retries %d, reconstructions %d; "
              "rounds %ld, results checked %ld, wrong %ld; errors: tasks %ld, actor %ld\n",
              r.workers_killed, r.nodes_killed, r.gcs_killed, r.retries, r.reconstructions,
              r.rounds, r.checked, r.wrong, r.task_errors, r.actor_errors);
}

TEST(ChaosTest, AMixedJobGetsOnlyRightResultsWhileWorkersANodeAndTheGcsDie) {
  TempDir dir;
  ChaosOptions o;
  o.seconds = 16;
  ChaosReport r = RunChaos(o, dir.path());
  Print(r);
  ASSERT_TRUE(r.ended) << "the job did not end within its bound\n" << r.out << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(r.rounds, 0) << r.out;
  EXPECT_EQ(r.wrong, 0) << r.out;
  EXPECT_EQ(r.task_errors, 0) << "every task may retry without limit\n" << r.err;
  EXPECT_GT(r.workers_killed, 0);
  EXPECT_EQ(r.nodes_killed, 1);
  EXPECT_EQ(r.gcs_killed, 1);
  EXPECT_TRUE(AwaitNoProcessesMentioning(dir.path()).empty());
}

}  // namespace
}  // namespace ray::testing
