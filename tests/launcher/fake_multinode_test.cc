// The autoscaler end to end on one machine (provider fake_multinode: every node a
// raylet process with its type's resources): a job that needs more CPUs than the
// head has makes the cluster grow; once idle, it shrinks back; `ray down` leaves no
// process. Runs without root.

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/integration/ray_harness.h"

namespace ray::testing {
namespace {

bool Contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

class FakeMultinodeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    home_ = dir_.path() + "/home";
    std::filesystem::create_directories(home_);
    name_ = "fm" + std::to_string(::getpid());
  }
  void TearDown() override {
    Ray({"down", "-y", config_});
    EXPECT_TRUE(AwaitNoProcessesMentioning(home_).empty()) << "left running";
  }

  void WriteConfig(const std::string& extra = "") {
    std::ostringstream y;
    y << "cluster_name: " << name_ << "\n"
      << "max_workers: 3\n"
      << "idle_timeout_minutes: 0.05\n"  // 3 s
      << "provider:\n  type: fake_multinode\n"
      << "available_node_types:\n"
      << "  ray.head.default:\n    resources: {CPU: 1}\n"
      << "  cpu_node:\n    resources: {CPU: 2}\n    max_workers: 2\n"
      << "  big_node:\n    resources: {CPU: 4, Big: 1}\n    max_workers: 1\n"
      << "head_node_type: ray.head.default\n"
      << "head_start_ray_commands:\n  - ray stop\n"
      << "  - ray start --head --port=0 --num-cpus=1 "
         "--autoscaling-config=~/ray_bootstrap_config.yaml\n"
      << extra;
    config_ = dir_.path() + "/fake.yaml";
    std::ofstream(config_) << y.str();
  }

  RunResult Ray(const std::vector<std::string>& args, int timeout_s = 120) {
    std::vector<std::string> argv = {"env", "HOME=" + home_, "AUTOSCALER_UPDATE_INTERVAL_S=0.3",
                                     RAY_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv, dir_.path(), timeout_s);
  }

  std::string MonitorLog() {
    return ReadText(home_ + "/.ray/clusters/" + name_ +
                    "-fake/head/tmp/session_latest/logs/monitor.err");
  }

  int Workers() {
    auto r = Ray({"get-worker-ips", config_});
    return r.exit_code == 0 ? CountLines(r.out, "127.0.0.1") : -1;
  }

  // `ray status --json` on the head: the autoscaler's view is in it.
  nlohmann::json Status() {
    auto r = Ray({"exec", config_, "ray status --json"});
    try {
      return nlohmann::json::parse(r.out.substr(r.out.find('{')));
    } catch (const std::exception&) {
      return {};
    }
  }

  TempDir dir_;
  std::string home_, name_, config_;
};

TEST_F(FakeMultinodeTest, AJobNeedingMoreThanTheHeadGrowsTheClusterWhichShrinksWhenIdle) {
  WriteConfig();
  auto up = Ray({"up", "-y", config_});
  ASSERT_EQ(up.exit_code, 0) << up.all();
  EXPECT_EQ(Workers(), 0);

  // Five 2-second tasks on a 1-CPU head: the autoscaler adds cpu_node workers.
  auto start = std::chrono::steady_clock::now();
  auto job = Ray({"submit", config_, LAUNCHER_PLUGIN, "spread", "5", "2"});
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(job.exit_code, 0) << job.all();
  int nodes = std::stoi(KeyValue(job.out, "nodes"));
  EXPECT_GE(nodes, 2) << job.out << "\nmonitor log:\n" << MonitorLog();
  std::printf("[ autoscaler ] 5 x 2 s tasks on %d nodes in %.1f s (10 s on the head alone)\n",
              nodes, took);
  auto status = Status()["autoscaler"];
  EXPECT_EQ(status["cluster_name"], name_) << status.dump();
  EXPECT_EQ(status["alive"], true) << status.dump();

  // Idle for idle_timeout_minutes (3 s): back to the head alone.
  int workers = -1;
  for (int i = 0; i < 100 && workers != 0; ++i) {
    workers = Workers();
    if (workers != 0) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_EQ(workers, 0) << "the idle workers were not removed";
  EXPECT_EQ(AwaitNoProcessesMentioning(home_ + "/.ray/clusters/" + name_ + "-fake/nodes/").size(),
            0u);
}

TEST_F(FakeMultinodeTest, WorkNoNodeFitsWaitsForTheNodeTheAutoscalerAdds) {
  WriteConfig();
  ASSERT_EQ(Ray({"up", "-y", config_}).exit_code, 0);
  // {"CPU": 2} fits no running node (the head has 1): it waits, a cpu_node comes.
  auto start = std::chrono::steady_clock::now();
  auto job = Ray({"submit", config_, LAUNCHER_PLUGIN, "big"});
  std::printf("[ autoscaler ] a task no node fits ran on a new node %.2f s after its submit\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  ASSERT_EQ(job.exit_code, 0) << job.all();
  EXPECT_FALSE(KeyValue(job.out, "big_node").empty()) << job.out;
  auto text = Ray({"exec", config_, "ray status"});
  EXPECT_TRUE(Contains(text.out, "Autoscaler (" + name_ + ", fake_multinode provider")) << text.out;
  EXPECT_TRUE(Contains(text.out, "cpu_node")) << text.out;
}

TEST_F(FakeMultinodeTest, MinWorkersComeUpAtOnceAndStay) {
  WriteConfig();
  std::string text = ReadText(config_);
  text.replace(text.find("    max_workers: 2\n"), 18, "    min_workers: 2\n    max_workers: 2\n");
  std::ofstream(config_) << text;
  ASSERT_EQ(Ray({"up", "-y", config_}).exit_code, 0);
  int workers = -1;
  for (int i = 0; i < 100 && workers != 2; ++i) {
    workers = Workers();
    if (workers != 2) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(workers, 2);
  std::this_thread::sleep_for(std::chrono::seconds(4));  // past the idle timeout
  EXPECT_EQ(Workers(), 2) << "min_workers were removed as idle";
  auto down = Ray({"down", "-y", config_});
  EXPECT_EQ(down.exit_code, 0) << down.all();
  EXPECT_TRUE(AwaitNoProcessesMentioning(home_).empty());
}

TEST_F(FakeMultinodeTest, BadConfigsAreRefusedBeforeAnythingStarts) {
  WriteConfig("no_such_key: 1\n");
  auto r = Ray({"up", "-y", config_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(Contains(r.err, "fake.yaml:19: unknown key `no_such_key`")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(home_ + "/.ray/clusters/" + name_ + "-fake")) << "touched";

  // Without -y and without a terminal to ask on: refused, nothing started.
  WriteConfig();
  auto no_yes = RunCommand({"sh", "-c", "HOME=" + home_ + " " + RAY_BINARY + " up " + config_ +
                                            " < /dev/null"},
                           dir_.path());
  EXPECT_NE(no_yes.exit_code, 0);
  EXPECT_TRUE(Contains(no_yes.err, "pass -y")) << no_yes.all();
  EXPECT_TRUE(AwaitNoProcessesMentioning(home_).empty());
}

}  // namespace
}  // namespace ray::testing
