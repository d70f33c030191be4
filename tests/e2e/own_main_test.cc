// A program of the user's own driving jobs with ray::Init / ray::Shutdown: it starts
// a cluster when none runs, joins a running one, and says what is wrong when it cannot.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/integration/ray_harness.h"

namespace ray::testing {
namespace {

// Runs the program with RAY_TMPDIR=`temp_dir` (so a started cluster lives there).
RunResult RunProgram(const TempDir& dir, std::vector<std::string> args, int timeout_s = 90) {
  std::vector<std::string> argv{"env", "RAY_TMPDIR=" + dir.path(), "RAY_ADDRESS=", OWN_MAIN};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, dir.path(), timeout_s);
}

// A head node of 2 CPUs under `dir`, for the program to join.
RunResult StartHead(const TempDir& dir) {
  return RunRay({"start", "--head", "--port", "0", "--num-cpus", "2", "--temp-dir", dir.path()},
                dir.path());
}

// Runs the program with `args`, which must fail (exit code 2) saying `says`.
void ExpectFails(const TempDir& dir, const std::vector<std::string>& args, const std::string& says) {
  RunResult r = RunProgram(dir, args);
  EXPECT_EQ(r.exit_code, 2) << r.all();
  EXPECT_NE(r.err.find(says), std::string::npos) << r.all();
}

TEST(OwnMainTest, StartsAClusterRunsTasksAndActorsAndStopsIt) {
  TempDir dir;
  RunResult r = RunProgram(dir, {"run"});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_NE(r.out.find("initialized before Init: 0"), std::string::npos) << r.all();
  EXPECT_NE(r.out.find("initialized after Init: 1"), std::string::npos) << r.all();
  EXPECT_NE(r.out.find("sum of squares 285, counter 15"), std::string::npos) << r.all();
  EXPECT_NE(r.out.find("initialized after Shutdown: 0"), std::string::npos) << r.all();
  // The cluster it started is gone: no daemon of it and no segment left.
  ASSERT_EQ(Sessions(dir.path()).size(), 1u);
  EXPECT_TRUE(AwaitNoProcessesMentioning(dir.path()).empty());
  EXPECT_TRUE(SegmentsOfSessions(dir.path()).empty());
}

TEST(OwnMainTest, ExitWithoutShutdownStillStopsItsCluster) {
  TempDir dir;
  RunResult r = RunProgram(dir, {"exit"});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_NE(r.out.find("sum of squares 285"), std::string::npos) << r.all();
  EXPECT_TRUE(AwaitNoProcessesMentioning(dir.path()).empty());
}

TEST(OwnMainTest, ShutdownFromACallbackIsRefusedAndTheJobGoesOn) {
  TempDir dir;
  RunResult r = RunProgram(dir, {"callback"});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_NE(r.out.find("Shutdown from a callback: ray::Shutdown: not from a Then/GetAsync "
                       "callback (the job goes on)"),
            std::string::npos)
      << r.all();
  EXPECT_NE(r.out.find("sum of squares 285, counter 15"), std::string::npos) << r.all();
  EXPECT_NE(r.out.find("initialized after Shutdown: 0"), std::string::npos) << r.all();
}

TEST(OwnMainTest, JoinsARunningClusterAndLeavesItRunning) {
  TempDir dir;
  RunResult start = StartHead(dir);
  ASSERT_EQ(start.exit_code, 0) << start.all();
  for (const std::string address : {"", "auto"}) {
    RunResult r = RunProgram(dir, {"run", address});
    EXPECT_EQ(r.exit_code, 0) << address << ": " << r.all();
    EXPECT_NE(r.out.find("sum of squares 285, counter 15"), std::string::npos) << r.all();
  }
  // The same one cluster served both (an actor of each, ended with its job), and
  // still runs.
  EXPECT_EQ(Sessions(dir.path()).size(), 1u);
  RunResult actors = RunRay({"list", "actors", "--temp-dir", dir.path()}, dir.path());
  EXPECT_EQ(CountLines(actors.out, " DEAD "), 2) << actors.all();
  EXPECT_EQ(RunRay({"stop", "--temp-dir", dir.path()}, dir.path()).exit_code, 0);
}

TEST(OwnMainTest, RaysCommandLineFlagsChooseTheClusterAndAreCheckedByName) {
  TempDir dir;
  RunResult start = StartHead(dir);
  ASSERT_EQ(start.exit_code, 0) << start.all();
  RunResult joined = RunProgram(dir, {"flags", "--ray_address", "auto", "--verbose"});
  EXPECT_EQ(joined.exit_code, 0) << joined.all();
  EXPECT_NE(joined.out.find("sum of squares 285, counter 15"), std::string::npos) << joined.all();
  EXPECT_EQ(Sessions(dir.path()).size(), 1u) << "it joined the running node";
  EXPECT_EQ(RunRay({"stop", "--temp-dir", dir.path()}, dir.path()).exit_code, 0);

  ExpectFails(dir, {"flags", "--ray_address=auto"}, "no running ray node under " + dir.path());
  ExpectFails(dir, {"flags", "--ray_code_search_path=/nonexistent/a.so"},
              "no plugin at /nonexistent/a.so");
  ExpectFails(dir, {"flags", "--ray_redis_password=secret"},
              "--ray_redis_password is not supported");
  ExpectFails(dir, {"flags", "--ray_job_id", "01000000"}, "--ray_job_id is not supported");
  ExpectFails(dir, {"flags", "--ray_address", "--verbose"}, "--ray_address needs a value");
  // After "--", the program's own: not read as Ray's (else this would be refused).
  RunResult after = RunProgram(dir, {"flags", "--", "--ray_job_id", "01000000"});
  EXPECT_EQ(after.exit_code, 0) << after.all();
  EXPECT_TRUE(AwaitNoProcessesMentioning(dir.path()).empty());
}

TEST(OwnMainTest, SaysWhatIsWrong) {
  TempDir dir;
  ExpectFails(dir, {"twice"}, "ray::Init: already initialized");
  ExpectFails(dir, {"early"}, "call ray::Init() first");
  ExpectFails(dir, {"missing"}, "no plugin at /nonexistent/tasks.so");
  ExpectFails(dir, {"run", "auto"}, "no running ray node under " + dir.path());
  ExpectFails(dir, {"run", "nohost"}, "must be HOST:PORT, got 'nohost'");
  EXPECT_TRUE(AwaitNoProcessesMentioning(dir.path()).empty());
}

}  // namespace
}  // namespace ray::testing
