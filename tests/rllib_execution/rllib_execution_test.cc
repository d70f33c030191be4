// AsyncRequestsManager and EnvRunnerGroup end to end: each test runs one case of
// execution_plugin.so with `ray run` on a 4-CPU cluster of its own, then checks that
// the run left no process behind.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/integration/ray_harness.h"

namespace ray::testing {
namespace {

class RllibExecutionTest : public ::testing::Test {
 protected:
  void ExpectPassed(const std::string& name) {
    RunResult r =
        RunRay({"run", "--temp-dir", tmp_.path(), "--num-cpus", "4", EXECUTION_PLUGIN, name},
               tmp_.path(), 90);
    EXPECT_EQ(r.exit_code, 0) << r.all();
    EXPECT_NE(r.out.find("CASE PASSED: " + name), std::string::npos) << r.all();
  }

  void TearDown() override {
    EXPECT_EQ(AwaitNoProcessesMentioning(tmp_.path()), std::vector<int>{})
        << "processes of " << tmp_.path() << " outlived `ray run`";
  }

  TempDir tmp_;
};

// AsyncRequestsManager.
TEST_F(RllibExecutionTest, ManagerRoundRobinHonoursTheLimitWithoutQueueing) {
  ExpectPassed("manager_round_robin");
}
TEST_F(RllibExecutionTest, ManagerTargetedCallsCursorAndWorkerSet) {
  ExpectPassed("manager_targeting");
}
TEST_F(RllibExecutionTest, ManagerGetReadyReturnsEachResultOnceInOrder) {
  ExpectPassed("manager_get_ready");
}
TEST_F(RllibExecutionTest, ManagerRemovalDropsOrKeepsInFlightCalls) {
  ExpectPassed("manager_removal");
}
TEST_F(RllibExecutionTest, ManagerFailedCallsFreeTheirSlotAndNameTheirWorker) {
  ExpectPassed("manager_errors");
}

// EnvRunnerGroup.
TEST_F(RllibExecutionTest, GroupIdsGrowthRemovalAndValidation) {
  ExpectPassed("group_construction");
}
TEST_F(RllibExecutionTest, GroupForeachWorkerOrderSelectionAndTimeouts) {
  ExpectPassed("group_foreach");
}
TEST_F(RllibExecutionTest, GroupAsyncFanOutAndFetch) { ExpectPassed("group_async"); }
TEST_F(RllibExecutionTest, GroupSyncWeightsPutsOnceForEveryWorker) {
  ExpectPassed("group_sync_weights");
}
TEST_F(RllibExecutionTest, GroupRecreatesAKilledWorkerAndCountsTheRestart) {
  ExpectPassed("group_recreate");
}
TEST_F(RllibExecutionTest, GroupProbeRestoresLiveWorkersOnly) { ExpectPassed("group_probe"); }
TEST_F(RllibExecutionTest, GroupRaisesOrIgnoresWorkerFailures) {
  ExpectPassed("group_ignore_failures");
}

}  // namespace
}  // namespace ray::testing
