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
  RunResult start = RunRay({"start", "--head", "--port", "0", "--num-cpus", "2", "--temp-dir",
                            dir.path()},
                           dir.path());
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
  RunResult start = RunRay({"start", "--head", "--port", "0", "--num-cpus", "2", "--temp-dir",
                            dir.path()},
                           dir.path());
  ASSERT_EQ(start.exit_code, 0) << start.all();
  RunResult joined = RunProgram(dir, {"flags", "--ray_address", "auto", "--verbose"});
  EXPECT_EQ(joined.exit_code, 0) << joined.all();
  EXPECT_NE(joined.out.find("sum of squares 285, counter 15"), std::string::npos) << joined.all();
  EXPECT_EQ(Sessions(dir.path()).size(), 1u) << "it joined the running node";
  EXPECT_EQ(RunRay({"stop", "--temp-dir", dir.path()}, dir.path()).exit_code, 0);

  RunResult none = RunProgram(dir, {"flags", "--ray_address=auto"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no running ray node under " + dir.path()), std::string::npos)
      << none.all();
  RunResult missing = RunProgram(dir, {"flags", "--ray_code_search_path=/nonexistent/a.so"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no plugin at /nonexistent/a.so"), std::string::npos) << missing.all();
  RunResult password = RunProgram(dir, {"flags", "--ray_redis_password=secret"});
  EXPECT_EQ(password.exit_code, 2);
  EXPECT_NE(password.err.find("--ray_redis_password is not supported"), std::string::npos)
      << password.all();
  RunResult unknown = RunProgram(dir, {"flags", "--ray_job_id", "01000000"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("--ray_job_id is not supported"), std::string::npos) << unknown.all();
  RunResult dangling = RunProgram(dir, {"flags", "--ray_address", "--verbose"});
  EXPECT_EQ(dangling.exit_code, 2);
  EXPECT_NE(dangling.err.find("--ray_address needs a value"), std::string::npos) << dangling.all();
  // After "--", the program's own: not read as Ray's (else this would be refused).
  RunResult after = RunProgram(dir, {"flags", "--", "--ray_job_id", "01000000"});
  EXPECT_EQ(after.exit_code, 0) << after.all();
  EXPECT_TRUE(AwaitNoProcessesMentioning(dir.path()).empty());
}

TEST(OwnMainTest, SaysWhatIsWrong) {
  TempDir dir;
  RunResult twice = RunProgram(dir, {"twice"});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("ray::Init: already initialized"), std::string::npos) << twice.all();

  RunResult early = RunProgram(dir, {"early"});
  EXPECT_EQ(early.exit_code, 2);
  EXPECT_NE(early.err.find("call ray::Init() first"), std::string::npos) << early.all();

  RunResult missing = RunProgram(dir, {"missing"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("no plugin at /nonexistent/tasks.so"), std::string::npos)
      << missing.all();

  RunResult none = RunProgram(dir, {"run", "auto"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no running ray node under " + dir.path()), std::string::npos)
      << none.all();

  RunResult bad = RunProgram(dir, {"run", "nohost"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("must be HOST:PORT, got 'nohost'"), std::string::npos) << bad.all();
  EXPECT_TRUE(AwaitNoProcessesMentioning(dir.path()).empty());
}

}  // namespace
}  // namespace ray::testing
