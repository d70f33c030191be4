// Concurrent actors (max_concurrency) and callbacks on results (ObjectRef::Then,
// ray::GetAsync), end to end: each test runs one case of concurrency_plugin.so with
// `ray run` on a cluster of its own.

#include <filesystem>

#include <gtest/gtest.h>

#include "tests/integration/ray_harness.h"

namespace ray::testing {
namespace {

class ConcurrencyTest : public ::testing::Test {
 protected:
  RunResult RunCase(const std::string& name, const std::vector<std::string>& extra = {}) {
    std::string work = tmp_.path() + "/work";
    std::filesystem::create_directories(work);
    std::vector<std::string> args{"run",  "--temp-dir", tmp_.path(), "--num-cpus", "4",
                                  IT_CONCURRENCY_PLUGIN, name, "--dir", work};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunRay(args, tmp_.path(), 240);
  }
  void ExpectPassed(const std::string& name, const std::vector<std::string>& extra = {}) {
    RunResult r = RunCase(name, extra);
    EXPECT_EQ(r.exit_code, 0) << r.all();
    EXPECT_NE(r.out.find("CASE PASSED: " + name), std::string::npos) << r.all();
    output_ = r.all();
  }
  void TearDown() override {
    EXPECT_EQ(AwaitNoProcessesMentioning(tmp_.path()), std::vector<int>{})
        << "processes of " << tmp_.path() << " outlived `ray run`";
  }

  TempDir tmp_;
  std::string output_;
};

// Four calls that each wait for the other three end only if all four run at once.
TEST_F(ConcurrencyTest, CallsOfAConcurrentActorRunAtOnce) { ExpectPassed("barrier"); }

// The default (max_concurrency 1) runs one call at a time: the same calls never meet
// (each of the first three waits its 1 s in turn).
TEST_F(ConcurrencyTest, ByDefaultAnActorRunsOneCallAtATime) {
  RunResult r = RunCase("barrier", {"--concurrency", "1", "--meet-wait-ms", "1000"});
  EXPECT_EQ(r.exit_code, 1) << r.all();
  EXPECT_NE(r.err.find("never saw 4 calls running at once"), std::string::npos) << r.all();
}

TEST_F(ConcurrencyTest, HundredsOfCallsFromTwoThreadsGetTheirOwnResults) {
  ExpectPassed("many", {"--concurrency", "8"});
}

TEST_F(ConcurrencyTest, MethodsUseTheApiAndOneBlocksInGetWhileOthersRun) {
  ExpectPassed("get_inside");
}

TEST_F(ConcurrencyTest, CallsInFlightAtADeathRunAgainOrFailAndKillFailsThem) {
  ExpectPassed("restart");
}

TEST_F(ConcurrencyTest, MaxConcurrencyOutOfRangeIsRefused) {
  RunResult r = RunCase("barrier", {"--concurrency", "0"});
  EXPECT_EQ(r.exit_code, 1) << r.all();
  EXPECT_NE(r.err.find("SetMaxConcurrency(0): max_concurrency is between 1 and 1000"),
            std::string::npos)
      << r.all();
}

TEST_F(ConcurrencyTest, TenThousandCallbacksRunOnceEachWithTheirValues) {
  ExpectPassed("then_many");
}

TEST_F(ConcurrencyTest, ErrorsReachCallbacksAndFutures) {
  ExpectPassed("then_errors");
  EXPECT_NE(output_.find("has no error callback"), std::string::npos) << output_;
  EXPECT_NE(output_.find("failing on purpose: 9"), std::string::npos) << output_;
  EXPECT_NE(output_.find("a Then callback threw"), std::string::npos) << output_;
}

TEST_F(ConcurrencyTest, CallbacksMayUseTheApi) { ExpectPassed("then_api"); }

TEST_F(ConcurrencyTest, AsyncCallsAwaitWithoutBlockingAndTheirBodiesRunOneAtATime) {
  ExpectPassed("async_interleave");
}

TEST_F(ConcurrencyTest, AsyncCallsFailWithWhatTheirBodiesLetOut) { ExpectPassed("async_errors"); }

TEST_F(ConcurrencyTest, AsyncCallsWhoseRefIsReadyAlreadyAllAnswer) { ExpectPassed("async_ready"); }

TEST_F(ConcurrencyTest, AsyncCallsInFlightAreCappedByMaxConcurrency) {
  ExpectPassed("async_limit", {"--concurrency", "2"});
  EXPECT_NE(output_.find("max_in_flight=2\n"), std::string::npos) << output_;
  ExpectPassed("async_limit", {"--concurrency", "0"});  // Ray's default: 1,000
  EXPECT_NE(output_.find("max_in_flight=6\n"), std::string::npos) << output_;
}

}  // namespace
}  // namespace ray::testing
