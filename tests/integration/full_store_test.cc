// A full object store, end to end on real clusters (store_plugin.cc is the job):
// referenced objects spill to <session>/spill and come back identical, to the driver
// and as a task's argument; objects every process maps are not moved, and the
// refusal names the sizes; spill files go when the node stops; a flood of small
// puts leaves the raylet's memory bounded.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "tests/integration/ray_harness.h"

namespace ray::testing {
namespace {

constexpr uint64_t kMiB = 1 << 20;

class FullStoreTest : public ::testing::Test {
 protected:
  std::string TempDir() { return dir_.path() + "/cluster"; }
  RunResult Run(uint64_t store_bytes, const std::vector<std::string>& args, int cpus = 2) {
    std::vector<std::string> cmd = {"run",
                                    "--temp-dir",
                                    TempDir(),
                                    "--num-cpus",
                                    std::to_string(cpus),
                                    "--object-store-memory",
                                    std::to_string(store_bytes),
                                    IT_STORE_PLUGIN};
    cmd.insert(cmd.end(), args.begin(), args.end());
    return RunRay(cmd, dir_.path(), 120);
  }

  testing::TempDir dir_;
};

TEST_F(FullStoreTest, TaskResultsBeyondCapacitySpillAndComeBackIdentical) {
  // 24 MiB of results in an 8 MiB store.
  auto r = Run(8 * kMiB, {"spill", TempDir(), "24", std::to_string(kMiB)});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(KeyValue(r.out, "made"), "ok") << r.all();
  EXPECT_GE(std::stoi("0" + KeyValue(r.out, "spill_files")), 16) << r.all();
  EXPECT_EQ(KeyValue(r.out, "driver"), "ok") << r.all();
  EXPECT_EQ(KeyValue(r.out, "argument"), "ok") << r.all();
  // The node removed its spill files when it stopped.
  for (const auto& session : Sessions(TempDir())) {
    auto left = RunCommand({"find", session + "/spill", "-type", "f"}, dir_.path());
    EXPECT_EQ(left.out, "") << "spill files left behind in " << session;
  }
  EXPECT_TRUE(SegmentsOfSessions(TempDir()).empty());
}

TEST_F(FullStoreTest, WhenEverythingIsPinnedThePutIsRefusedNamingTheSizes) {
  auto r = Run(4 * kMiB, {"refuse", std::to_string(kMiB)});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  std::string refused = KeyValue(r.out, "refused");
  // Three objects fill three quarters of the store; the driver maps all three.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(refused, m,
                                std::regex("needs (\\d+) bytes; capacity 4194304, in use (\\d+), "
                                           "pinned (\\d+)")))
      << r.all();
  EXPECT_EQ(m[2], m[3]) << "everything in use is pinned: " << refused;
  EXPECT_GT(std::stoull(m[1]) + std::stoull(m[2]), 4194304u) << refused;
  EXPECT_NE(refused.find("--object-store-memory"), std::string::npos) << refused;
}

TEST_F(FullStoreTest, AFloodOfSmallPutsLeavesTheRayletsMemoryBounded) {
  // Four processes put 30000 objects of 90 KiB each: 10 GiB through the raylet's
  // socket, faster than it reads. Without backpressure the raylet's queues grew to
  // 500-700 MiB at 20000 puts each; with it, it holds about 100 MiB (the frames
  // queued, and the objects put but not yet freed: see ReferenceCounter::kFreeBatch).
  auto r = Run(64 * kMiB, {"flood", "4", "30000", std::to_string(90 * 1024)}, 3);
  ASSERT_EQ(r.exit_code, 0) << r.all();
  const int64_t before = std::stoll("0" + KeyValue(r.out, "raylet_before_kib"));
  const int64_t peak = std::stoll("0" + KeyValue(r.out, "raylet_peak_kib"));
  ASSERT_GT(before, 0) << r.all();
  EXPECT_LT(peak - before, 300 * 1024)
      << "the raylet grew from " << before / 1024 << " to " << peak / 1024 << " MiB";
  std::printf("raylet: %lld MiB before, %lld MiB at peak\n", static_cast<long long>(before / 1024),
              static_cast<long long>(peak / 1024));
}

// Two nodes; the second (with the "Special" resource) has a small store. Copies of the
// driver's objects pulled there for its tasks are referenced by nobody there: when
// the store fills they are evicted, least recently used first, and pulled again when
// needed. Without eviction, a task's argument there fails with ObjectStoreFullError.
class FullStoreTwoNodesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    head_ = dir_.path() + "/head";
    worker_ = dir_.path() + "/worker";
    auto head = RunRay({"start", "--head", "--port", "0", "--num-cpus", "1", "--temp-dir", head_},
                       dir_.path());
    ASSERT_EQ(head.exit_code, 0) << head.all();
    auto status = RunRay({"status", "--json", "--temp-dir", head_}, dir_.path());
    ASSERT_EQ(status.exit_code, 0) << status.all();
    address_ = nlohmann::json::parse(status.out)["address"];
    auto join = RunRay(
        {"start", "--address", address_, "--token", ReadText(head_ + "/session_latest/token"),
         "--num-cpus", "1", "--resources", "{\"Special\": 1}", "--object-store-memory",
         std::to_string(8 * kMiB), "--temp-dir", worker_},
        dir_.path());
    ASSERT_EQ(join.exit_code, 0) << join.all();
  }
  void TearDown() override {
    RunRay({"stop", "--temp-dir", worker_}, dir_.path());
    RunRay({"stop", "--temp-dir", head_}, dir_.path());
    EXPECT_TRUE(AwaitNoProcessesMentioning(dir_.path()).empty());
  }

  testing::TempDir dir_;
  std::string head_, worker_, address_;
};

TEST_F(FullStoreTwoNodesTest, CopiesNobodyReferencesAreEvictedAndPulledAgain) {
  // 16 MiB of copies through an 8 MiB store.
  auto r = RunRay({"submit", "--address", address_, "--temp-dir", head_, IT_STORE_PLUGIN, "copies",
                   "16", std::to_string(kMiB)},
                  dir_.path(), 120);
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(KeyValue(r.out, "first"), "ok") << r.all();
  EXPECT_EQ(KeyValue(r.out, "again"), "ok") << r.all();
  // Made room by evicting alone: copies are never spilled.
  std::string log = ReadText(worker_ + "/session_latest/logs/raylet.err");
  EXPECT_GE(CountLines(log, "object store full: evicted"), 1) << log;
  EXPECT_EQ(CountLines(log, "and spilled 0 objects"), CountLines(log, "object store full")) << log;
}

}  // namespace
}  // namespace ray::testing
