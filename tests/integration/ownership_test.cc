// Ownership across processes, end to end: objects whose refs were passed between
// processes live while any process holds one and are freed once none does (a borrower
// killed with kill -9 included); actors die when their last handle anywhere goes.
// Each test runs one case of ownership_plugin.so with `ray run` on a cluster of its own.

#include <filesystem>

#include <gtest/gtest.h>

#include "tests/integration/ray_harness.h"

namespace ray::testing {
namespace {

class OwnershipTest : public ::testing::Test {
 protected:
  RunResult RunCase(const std::string& name) {
    return RunRay({"run", "--temp-dir", tmp_.path(), "--num-cpus", "4", IT_OWNERSHIP_PLUGIN, name},
                  tmp_.path(), 120);
  }
  void ExpectPassed(const std::string& name) {
    RunResult r = RunCase(name);
    EXPECT_EQ(r.exit_code, 0) << r.all();
    EXPECT_NE(r.out.find("CASE PASSED: " + name), std::string::npos) << r.all();
    output_ = r.all();
  }
  void TearDown() override {
    EXPECT_EQ(AwaitNoProcessesMentioning(tmp_.path()), std::vector<int>{});
  }

  TempDir tmp_;
  std::string output_;
};

TEST_F(OwnershipTest, AnObjectPassedThroughThreeProcessesLivesWhileHeldAndIsFreedAfter) {
  ExpectPassed("chain");
}

TEST_F(OwnershipTest, ABorrowerKilledWithSigkillDoesNotPinTheObject) {
  ExpectPassed("borrower_killed");
}

TEST_F(OwnershipTest, AnActorDiesWithItsLastHandleAndItsCpuReturns) {
  ExpectPassed("actor_last_handle");
}

TEST_F(OwnershipTest, AHandleKeptByAnotherActorKeepsTheActorAlive) {
  ExpectPassed("actor_held_by_actor");
}

}  // namespace
}  // namespace ray::testing
