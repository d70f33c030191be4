// Core semantics end to end: each test runs one case of semantics_plugin.so with
// `ray run` on a cluster of its own, then checks that the run left no process and no
// shared-memory segment behind.

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "tests/integration/ray_harness.h"

namespace ray::testing {
namespace {

class CoreSemanticsTest : public ::testing::Test {
 protected:
  // Runs `ray run --temp-dir <tmp> <flags> semantics_plugin.so <case> --dir <tmp>/work`.
  RunResult RunCase(const std::string& name, const std::vector<std::string>& flags) {
    std::string work = tmp_.path() + "/work";
    std::filesystem::create_directories(work);
    std::vector<std::string> args{"run", "--temp-dir", tmp_.path()};
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(), {IT_SEMANTICS_PLUGIN, name, "--dir", work});
    return RunRay(args, tmp_.path());
  }

  void ExpectPassed(const std::string& name, const std::vector<std::string>& flags) {
    RunResult r = RunCase(name, flags);
    EXPECT_EQ(r.exit_code, 0) << r.all();
    EXPECT_NE(r.out.find("CASE PASSED: " + name), std::string::npos) << r.all();
    output_ = r.all();
  }

  // CORE-003: a standalone cluster's processes end with the job, and its objects go.
  void TearDown() override {
    ASSERT_FALSE(Sessions(tmp_.path()).empty()) << "the run started no session";
    EXPECT_EQ(AwaitNoProcessesMentioning(tmp_.path()), std::vector<int>{})
        << "processes of " << tmp_.path() << " outlived `ray run`";
    EXPECT_EQ(SegmentsOfSessions(tmp_.path()), std::vector<std::string>{});
  }

  TempDir tmp_;
  std::string output_;
};

TEST_F(CoreSemanticsTest, ObjectsArgumentsChainsAndNestedTasksOnOneCpu) {
  ExpectPassed("objects", {"--num-cpus", "1"});
  EXPECT_NE(output_.find("nested: [45, 55, 65, 75, 85]"), std::string::npos) << output_;
}

// #18: small objects other processes made are read from the node's shared-memory index:
// with the raylet stopped, Get and Wait still answer.
TEST_F(CoreSemanticsTest, SmallObjectsOfOtherProcessesAreReadWithoutAMessage) {
  ExpectPassed("gets_without_the_raylet", {"--num-cpus", "1"});
}

TEST_F(CoreSemanticsTest, ATaskWaitingLendsItsCpuToTheTasksItWaitsFor) {
  ExpectPassed("nested_wait", {"--num-cpus", "1"});
}

TEST_F(CoreSemanticsTest, MoreActorsThanTheTaskWorkerLimitEachGetAWorker) {
  ExpectPassed("many_actors", {"--num-cpus", "1"});
}

TEST_F(CoreSemanticsTest, MultipleReturns) { ExpectPassed("returns", {"--num-cpus", "1"}); }

TEST_F(CoreSemanticsTest, WaitReturnsTheFastestInInputOrder) {
  ExpectPassed("wait", {"--num-cpus", "4"});
}

TEST_F(CoreSemanticsTest, GetTimeoutThrows) { ExpectPassed("get_timeout", {"--num-cpus", "1"}); }

TEST_F(CoreSemanticsTest, TaskErrorsCarryTypeMessageTaskAndPlace) {
  ExpectPassed("task_error", {"--num-cpus", "1"});
}

TEST_F(CoreSemanticsTest, DeadWorkersAreRetriedThenReported) {
  ExpectPassed("worker_death", {"--num-cpus", "1"});
}

TEST_F(CoreSemanticsTest, ResourcesBoundConcurrency) {
  ExpectPassed("resources", {"--num-cpus", "2", "--resources", R"({"Custom": 1})"});
}

TEST_F(CoreSemanticsTest, Actors) { ExpectPassed("actors", {"--num-cpus", "2"}); }

TEST_F(CoreSemanticsTest, ActorRestartRoutesCallsToTheNewInstanceAndRetries) {
  ExpectPassed("actor_restart", {"--num-cpus", "2"});
}

TEST_F(CoreSemanticsTest, TasksThatMustRunSideBySideDoWhileACpuIsFree) {
  ExpectPassed("side_by_side", {"--num-cpus", "2", "--resources", R"({"Custom": 1})"});
}

TEST_F(CoreSemanticsTest, TasksTheRayletSentAheadMoveToAFreedCpu) {
  ExpectPassed("side_by_side_raylet", {"--num-cpus", "2", "--resources", R"({"Custom": 1})"});
}

TEST_F(CoreSemanticsTest, CallsQueuedOnALeaseMoveToACpuAnotherCallerFreed) {
  ExpectPassed("side_by_side_callers", {"--num-cpus", "2"});
}

TEST_F(CoreSemanticsTest, ResourceRequestsAreCheckedAtSubmission) {
  ExpectPassed("resource_requests", {"--num-cpus", "2", "--resources", R"({"Custom": 1})"});
}

TEST_F(CoreSemanticsTest, DirectActorCallsKeepOrderAndSemantics) {
  ExpectPassed("direct_calls", {"--num-cpus", "2"});
}

TEST_F(CoreSemanticsTest, AResultInFlightIsPassedOnWithoutWaitingForIt) {
  ExpectPassed("in_flight_arguments", {"--num-cpus", "2"});
}

TEST_F(CoreSemanticsTest, LeasedWorkersRunTasksRetryThemAndEndTheirLeases) {
  ExpectPassed("leased_tasks", {"--num-cpus", "2"});
}

TEST_F(CoreSemanticsTest, LeasedWorkersYieldToTasksWaitingInTheRaylet) {
  ExpectPassed("leases_yield", {"--num-cpus", "2"});
}

TEST_F(CoreSemanticsTest, ActorsHoldResourcesUntilTheyDie) {
  ExpectPassed("actor_resources", {"--num-cpus", "2", "--resources", R"({"Custom": 1})"});
}

TEST_F(CoreSemanticsTest, MaxCallsReplacesWorkers) { ExpectPassed("max_calls", {"--num-cpus", "1"}); }

TEST_F(CoreSemanticsTest, LargeObjectsUseSharedMemory) {
  ExpectPassed("large_objects", {"--num-cpus", "1"});
}

TEST_F(CoreSemanticsTest, ObjectsGoWithTheirLastRefUnlessItEscaped) {
  ExpectPassed("free", {"--num-cpus", "1", "--object-store-memory", "300000000"});
}

TEST_F(CoreSemanticsTest, WorkerOutputReachesTheDriverWithItsPid) {
  ExpectPassed("output", {"--num-cpus", "1"});
  // "(pid=N) hello from task 1", N being a worker, not the driver.
  size_t at = output_.find(") hello from task 1");
  ASSERT_NE(at, std::string::npos) << output_;
  size_t open = output_.rfind("(pid=", at);
  ASSERT_NE(open, std::string::npos) << output_;
  EXPECT_EQ(output_.find('\n', open), output_.find('\n', at)) << output_;
  EXPECT_GT(std::stoi(output_.substr(open + 5)), 0) << output_;
}

TEST_F(CoreSemanticsTest, CallingAnUnregisteredFunctionIsAClearError) {
  ExpectPassed("unregistered", {"--num-cpus", "1"});
}

// `ray run` killed with SIGKILL while its job holds a shared-memory object, a running
// task and an actor: its daemons and workers must still go, and the segment with them.
TEST_F(CoreSemanticsTest, KilledRunLeavesNothingBehind) {
  std::string work = tmp_.path() + "/work";
  std::filesystem::create_directories(work);
  int pid = SpawnRay({"run", "--temp-dir", tmp_.path(), "--num-cpus", "2", IT_SEMANTICS_PLUGIN,
                      "abandoned", "--dir", work},
                     tmp_.path());
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!std::filesystem::exists(work + "/ready-1") && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  bool ready = std::filesystem::exists(work + "/ready-1");
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(ready) << "the job never got going";
  // TearDown checks that nothing is left.
}

TEST_F(CoreSemanticsTest, AFailedCheckFailsTheRun) {
  // The suite's own guard: an unknown case and a failing job exit non-zero.
  RunResult r = RunCase("no_such_case", {"--num-cpus", "1"});
  EXPECT_NE(r.exit_code, 0) << r.all();
  EXPECT_NE(r.err.find("unknown case no_such_case"), std::string::npos) << r.all();
}

}  // namespace
}  // namespace ray::testing
