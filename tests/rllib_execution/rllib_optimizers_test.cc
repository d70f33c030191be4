// AsyncGradientsOptimizer and AsyncSamplesOptimizer over real actors: each test runs
// one case of optimizer_plugin.so with `ray run` on a 4-CPU cluster of its own, then
// checks that the run left no process behind.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/integration/ray_harness.h"

namespace ray::testing {
namespace {

class RllibOptimizersTest : public ::testing::Test {
 protected:
  void ExpectPassed(const std::string& name) {
    RunResult r =
        RunRay({"run", "--temp-dir", tmp_.path(), "--num-cpus", "4", OPTIMIZER_PLUGIN, name},
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

TEST_F(RllibOptimizersTest, AsyncGradientsDispatchesAsSeed004) {
  ExpectPassed("async_gradients_dispatch");
}
TEST_F(RllibOptimizersTest, AsyncOptimizersNeedRemoteWorkers) {
  ExpectPassed("async_needs_remote_workers");
}
TEST_F(RllibOptimizersTest, AsyncSamplesKeepsRequestsInFlightAndBroadcasts) {
  ExpectPassed("async_samples_pipeline");
}
TEST_F(RllibOptimizersTest, AsyncSamplesBroadcastIntervalHoldsWeights) {
  ExpectPassed("async_samples_broadcast_interval");
}
TEST_F(RllibOptimizersTest, AsyncSamplesReplaysKeptFragments) {
  ExpectPassed("async_samples_replay");
}
TEST_F(RllibOptimizersTest, AsyncGradientsReplacesOrDropsALostWorkerWhenAsked) {
  ExpectPassed("async_gradients_worker_lost");
}
TEST_F(RllibOptimizersTest, AsyncSamplesReplacesOrDropsALostWorkerWhenAsked) {
  ExpectPassed("async_samples_worker_lost");
}

}  // namespace
}  // namespace ray::testing
