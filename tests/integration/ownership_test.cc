// Ownership across processes, end to end: objects whose refs were passed between
// processes live while any process holds one and are freed once none does (a borrower
// killed with kill -9 included); actors die when their last handle anywhere goes.
// Each test runs one case of ownership_plugin.so with `ray run` on a cluster of its own
// (or, across nodes, `ray submit` to a head and a second node with the resource "B").

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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

// Two nodes on this machine: the driver's (the head, 1 CPU) and one with the
// resource "B" (2 CPUs).
class OwnershipAcrossNodesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    head_ = dir_.path() + "/head";
    other_ = dir_.path() + "/other";
    auto head = RunRay({"start", "--head", "--port", "0", "--num-cpus", "1", "--temp-dir", head_,
                        "--heartbeat-timeout-ms", "2000"},
                       dir_.path());
    ASSERT_EQ(head.exit_code, 0) << head.all();
    auto status = RunRay({"status", "--json", "--temp-dir", head_}, dir_.path());
    ASSERT_EQ(status.exit_code, 0) << status.all();
    address_ = nlohmann::json::parse(status.out)["address"];
    auto join = RunRay({"start", "--address", address_, "--token",
                        ReadText(head_ + "/session_latest/token"), "--num-cpus", "2",
                        "--resources", R"({"B": 4})", "--temp-dir", other_},
                       dir_.path());
    ASSERT_EQ(join.exit_code, 0) << join.all();
  }
  void TearDown() override {
    RunRay({"stop", "--temp-dir", other_}, dir_.path());
    RunRay({"stop", "--temp-dir", head_}, dir_.path());
    EXPECT_EQ(AwaitNoProcessesMentioning(dir_.path()), std::vector<int>{});
  }
  void ExpectPassed(const std::string& name) {
    RunResult r = RunRay({"submit", "--address", address_, "--temp-dir", head_,
                          IT_OWNERSHIP_PLUGIN, name},
                         dir_.path(), 120);
    EXPECT_EQ(r.exit_code, 0) << r.all();
    EXPECT_NE(r.out.find("CASE PASSED: " + name), std::string::npos) << r.all();
  }

  TempDir dir_;
  std::string head_, other_, address_;
};

TEST_F(OwnershipAcrossNodesTest, AnObjectHeldOnAnotherNodeLivesWhileHeldAndIsFreedOnBothAfter) {
  ExpectPassed("chain_across_nodes");
}

TEST_F(OwnershipAcrossNodesTest, AResultMadeOnAnotherNodeIsFreedThereWithItsLastRef) {
  ExpectPassed("result_across_nodes");
}

TEST_F(OwnershipAcrossNodesTest, AnActorOnAnotherNodeDiesWithItsLastHandle) {
  ExpectPassed("actor_across_nodes");
}

TEST_F(OwnershipAcrossNodesTest, ANodeThatDiesLetsGoOfWhatItHeld) {
  const std::string scratch = dir_.path() + "/driver";
  std::filesystem::create_directories(scratch);
  int driver = SpawnRay({"submit", "--address", address_, "--temp-dir", head_,
                         IT_OWNERSHIP_PLUGIN, "borrower_node_dies"},
                        scratch);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (SpawnedOutput(scratch, ".out").find("kept") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_NE(SpawnedOutput(scratch, ".out").find("kept"), std::string::npos)
      << SpawnedOutput(scratch, ".err");
  for (int pid : ProcessesMentioning(other_)) ::kill(pid, SIGKILL);  // its raylet and workers
  int status = -1;
  while (::waitpid(driver, &status, WNOHANG) == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (!WIFEXITED(status)) {
    ::kill(driver, SIGKILL);
    ::waitpid(driver, &status, 0);
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << SpawnedOutput(scratch, ".err");
  EXPECT_NE(SpawnedOutput(scratch, ".out").find("CASE PASSED: borrower_node_dies"),
            std::string::npos)
      << SpawnedOutput(scratch, ".out") << SpawnedOutput(scratch, ".err");
}

}  // namespace
}  // namespace ray::testing
