// GPU ids without GPUs: nodes started with --num-gpus 2 hand out ids 0 and 1 (or the
// ones CUDA_VISIBLE_DEVICES listed when the node started), and tasks see them in
// ray::GetGpuIds() and CUDA_VISIBLE_DEVICES. Jobs come from state_plugin.cc.

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <set>
#include <sstream>

#include "tests/integration/ray_harness.h"

namespace ray::testing {
namespace {

class GpuTest : public ::testing::Test {
 protected:
  void TearDown() override {
    RunRay({"stop", "--temp-dir", temp_}, dir_.path());
    EXPECT_TRUE(AwaitNoProcessesMentioning(dir_.path()).empty());
  }
  // Starts a head with 4 CPUs and 2 GPUs; `visible` (if not null) is the
  // CUDA_VISIBLE_DEVICES the node starts with.
  void StartHead(const char* visible) {
    temp_ = dir_.path() + "/cluster";
    if (visible) ::setenv("CUDA_VISIBLE_DEVICES", visible, 1);
    auto head = RunRay({"start", "--head", "--port", "0", "--num-cpus", "4", "--num-gpus", "2",
                        "--temp-dir", temp_},
                       dir_.path());
    if (visible) ::unsetenv("CUDA_VISIBLE_DEVICES");
    ASSERT_EQ(head.exit_code, 0) << head.all();
    auto status = RunRay({"status", "--temp-dir", temp_}, dir_.path());
    ASSERT_NE(status.out.find("0/2 GPU"), std::string::npos) << status.all();
  }
  RunResult Submit(const std::string& which) {
    std::string meet = dir_.path() + "/meet-" + which;
    ::mkdir(meet.c_str(), 0755);
    return RunRay({"submit", "--temp-dir", temp_, IT_STATE_PLUGIN, which, meet}, dir_.path(), 60);
  }

  TempDir dir_;
  std::string temp_;
};

TEST_F(GpuTest, TasksGetWholeIdsSharedFractionsAndTheirEnvironment) {
  StartHead(nullptr);
  auto r = Submit("gpus");
  ASSERT_EQ(r.exit_code, 0) << r.all();
  // "ids|CUDA_VISIBLE_DEVICES" as each task saw them.
  EXPECT_EQ(KeyValue(r.out, "driver"), "");
  EXPECT_EQ(KeyValue(r.out, "none"), "|") << "no GPU asked: no ids, CUDA_VISIBLE_DEVICES empty";
  EXPECT_EQ(KeyValue(r.out, "two"), "0,1|0,1");
  std::set<std::string> whole{KeyValue(r.out, "one_a"), KeyValue(r.out, "one_b")};
  EXPECT_EQ(whole, (std::set<std::string>{"0|0", "1|1"})) << "concurrent whole GPUs differ";
  std::string half = KeyValue(r.out, "half_a");
  EXPECT_TRUE(half == "0|0" || half == "1|1") << half;
  EXPECT_EQ(KeyValue(r.out, "half_b"), half) << "two halves share one GPU";
}

TEST_F(GpuTest, AnActorHoldsItsGpuForLife) {
  StartHead(nullptr);
  auto r = Submit("gpu_actor");
  ASSERT_EQ(r.exit_code, 0) << r.all();
  std::string actor = KeyValue(r.out, "actor_first");
  EXPECT_TRUE(actor == "0|0" || actor == "1|1") << actor;
  EXPECT_EQ(KeyValue(r.out, "actor_again"), actor);
  std::string task = KeyValue(r.out, "task_meanwhile");
  EXPECT_TRUE((task == "0|0" || task == "1|1") && task != actor) << task << " vs " << actor;
}

TEST_F(GpuTest, IdsComeFromCudaVisibleDevicesAtNodeStart) {
  StartHead("5,3,7");
  auto r = Submit("gpus");
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(KeyValue(r.out, "two"), "3,5|3,5");
  EXPECT_EQ(KeyValue(r.out, "none"), "|");
  std::set<std::string> whole{KeyValue(r.out, "one_a"), KeyValue(r.out, "one_b")};
  EXPECT_EQ(whole, (std::set<std::string>{"5|5", "3|3"}));
}

}  // namespace
}  // namespace ray::testing
