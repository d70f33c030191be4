// The GCS dies, the job goes on: a head whose GCS server is killed (kill -9) starts
// it again on the same address (its supervisor), the new one reloads the tables, and
// a running job's tasks, actor calls and objects carry on. A frozen GCS does not
// stall the job either (the raylet does not wait for it on the task path). A head
// started again on its temp dir finds its cluster's tables.

#include <algorithm>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <future>
#include <regex>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/integration/ray_harness.h"

namespace ray::testing {
namespace {

constexpr int kRounds = 200;

class GcsRestartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    temp_ = dir_.path() + "/head";
    progress_ = dir_.path() + "/progress";
    StartHead();
  }
  void TearDown() override {
    if (!worker_.empty()) RunRay({"stop", "--temp-dir", worker_}, dir_.path());
    auto stop = RunRay({"stop", "--temp-dir", temp_}, dir_.path());
    EXPECT_EQ(stop.exit_code, 0) << stop.all();
    EXPECT_TRUE(AwaitNoProcessesMentioning(dir_.path()).empty());
  }
  void StartHead() {
    auto head = RunRay({"start", "--head", "--port", "0", "--num-cpus", "2", "--temp-dir", temp_},
                       dir_.path());
    ASSERT_EQ(head.exit_code, 0) << head.all();
    session_ = ReadText(temp_ + "/session_latest/node.json").empty()
                   ? ""
                   : nlohmann::json::parse(ReadText(temp_ + "/session_latest/node.json"))
                         .value("session_dir", "");
    ASSERT_FALSE(session_.empty());
    address_ = Status()["address"];
  }
  nlohmann::json Status() {
    auto s = RunRay({"status", "--json", "--temp-dir", temp_}, dir_.path(), 30);
    EXPECT_EQ(s.exit_code, 0) << s.all();
    return s.exit_code == 0 ? nlohmann::json::parse(s.out) : nlohmann::json::object();
  }
  // The GCS server running now (its supervisor records it).
  int GcsPid() { return std::atoi(ReadText(session_ + "/gcs.pid").c_str()); }
  // The job, in the background: kRounds rounds, bounded by `timeout_s`; `mode`
  // "lookup": the actor is looked up by name every round.
  std::future<RunResult> SubmitJob(int timeout_s, const std::string& mode) {
    return std::async(std::launch::async, [this, timeout_s, mode] {
      return RunRay({"submit", "--address", address_, "--temp-dir", temp_, IT_GCS_RESTART_PLUGIN,
                     std::to_string(kRounds), progress_, mode},
                    dir_.path(), timeout_s);
    });
  }
  // Waits (at most 60 s) until the job has finished `round` rounds.
  bool AwaitRound(int round) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
      if (std::atoi(ReadText(progress_).c_str()) >= round) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  TempDir dir_;
  std::string temp_, progress_, session_, address_;
  std::string worker_;  // the temp dir of a second node, if a test starts one
};

TEST_F(GcsRestartTest, AKilledGcsIsStartedAgainAndTheJobGoesOn) {
  int first = GcsPid();
  ASSERT_GT(first, 0);
  auto job = SubmitJob(120, "lookup");
  ASSERT_TRUE(AwaitRound(3)) << "the job did not get through 3 rounds";
  ASSERT_EQ(::kill(first, SIGKILL), 0);
  // Started again (its supervisor records the new pid), and the job goes on after.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (GcsPid() == first && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  int round = std::atoi(ReadText(progress_).c_str());
  EXPECT_NE(GcsPid(), first) << "the GCS was not started again";
  EXPECT_TRUE(round >= kRounds || AwaitRound(round + 5))
      << "the job made no progress after the GCS came back (round " << round << ")";

  RunResult r = job.get();
  EXPECT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(KeyValue(r.out, "rounds_ok"), std::to_string(kRounds)) << r.all();
  EXPECT_EQ(KeyValue(r.out, "errors"), "0") << r.all();
  std::printf("slowest round with the GCS killed: %s ms\n",
              KeyValue(r.out, "slowest_round_ms").c_str());

  // Started again, on the same address, and it says so.
  int second = GcsPid();
  EXPECT_GT(second, 0);
  EXPECT_NE(second, first);
  nlohmann::json status = Status();
  EXPECT_EQ(status["address"], address_);
  EXPECT_EQ(status["gcs"]["restarts"], 1) << status.dump();
  ASSERT_EQ(status["nodes"].size(), 1u) << status.dump();
  EXPECT_EQ(status["nodes"][0]["state"], "ALIVE") << "a restarted GCS keeps live nodes alive";
  auto text = RunRay({"status", "--temp-dir", temp_}, dir_.path(), 30);
  EXPECT_NE(text.out.find("GCS: restarted 1 time"), std::string::npos) << text.out;
}

TEST_F(GcsRestartTest, TheRestartedGcsHearsAgainWhereObjectsAre) {
  // A job holds a 128 KiB object; the GCS is killed. The directory it reloads from
  // SQLite has the object's node but not its size (and may miss the last entries of
  // its write-behind buffer): the raylet, seeing a new GCS start in its heartbeat's
  // answer, reports what it holds again.
  auto job = std::async(std::launch::async, [this] {
    return RunRay({"submit", "--address", address_, "--temp-dir", temp_, IT_GCS_RESTART_PLUGIN,
                   "hold", progress_},
                  dir_.path(), 90);
  });
  ASSERT_TRUE(AwaitRound(1)) << "the job did not put its object";
  // The largest size the directory lists (-1: none listed, or no answer).
  auto object_size = [&]() -> int64_t {
    auto list = RunRay({"list", "objects", "--json", "--temp-dir", temp_}, dir_.path(), 30);
    int64_t largest = -1;
    if (list.exit_code != 0) return largest;
    for (const auto& o : nlohmann::json::parse(list.out)) {
      largest = std::max(largest, o.value("size", int64_t{0}));
    }
    return largest;
  };
  auto await_size = [&](auto pred) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    int64_t size = object_size();
    while (!pred(size) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      size = object_size();
    }
    return size;
  };
  EXPECT_GE(await_size([](int64_t s) { return s >= (1 << 17); }), 1 << 17) << "before the kill";
  // Written to SQLite (the write-behind buffer flushes within ~200 ms).
  std::this_thread::sleep_for(std::chrono::seconds(1));
  int first = GcsPid();
  ASSERT_EQ(::kill(first, SIGKILL), 0);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (GcsPid() == first && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_NE(GcsPid(), first) << "the GCS was not started again";
  EXPECT_GE(await_size([](int64_t s) { return s >= (1 << 17); }), 1 << 17)
      << "the restarted GCS did not hear the object's size again";
  std::string log = ReadText(session_ + "/logs/raylet.err");
  EXPECT_TRUE(std::regex_search(log, std::regex("reporting the [1-9][0-9]* objects held here again")))
      << log;
  std::ofstream(progress_ + ".go") << "go";
  RunResult r = job.get();
  EXPECT_EQ(r.exit_code, 0) << r.all();
}

TEST_F(GcsRestartTest, AnotherNodeChecksInWithTheRestartedGcs) {
  worker_ = dir_.path() + "/worker";
  auto join = RunRay({"start", "--address", address_, "--token", ReadText(session_ + "/token"),
                      "--num-cpus", "1", "--resources", "{\"Special\": 1}", "--temp-dir", worker_},
                     dir_.path());
  ASSERT_EQ(join.exit_code, 0) << join.all();
  int first = GcsPid();
  ASSERT_EQ(::kill(first, SIGKILL), 0);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (GcsPid() == first && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // Work that only the other node can run goes there through the restarted GCS.
  auto r = RunRay({"submit", "--address", address_, "--temp-dir", temp_, IT_MULTINODE_PLUGIN,
                   "placement"},
                  dir_.path(), 60);
  EXPECT_EQ(r.exit_code, 0) << r.all();
  EXPECT_NE(KeyValue(r.out, "special_node"), KeyValue(r.out, "driver_node")) << r.out;
  nlohmann::json status = Status();
  EXPECT_EQ(status["gcs"]["restarts"], 1) << status.dump();
  ASSERT_EQ(status["nodes"].size(), 2u) << status.dump();
  for (const auto& n : status["nodes"]) EXPECT_EQ(n["state"], "ALIVE") << status.dump();
}

TEST_F(GcsRestartTest, AFrozenGcsDoesNotStallTheJob) {
  int gcs = GcsPid();
  ASSERT_GT(gcs, 0);
  auto job = SubmitJob(120, "handle");
  ASSERT_TRUE(AwaitRound(3)) << "the job did not get through 3 rounds";
  // Stopped, not dead: its supervisor sees nothing to restart, and requests to it
  // get no answer. Every round must still complete while it is frozen.
  ASSERT_EQ(::kill(gcs, SIGSTOP), 0);
  bool all_rounds = AwaitRound(kRounds);
  ASSERT_EQ(::kill(gcs, SIGCONT), 0);
  EXPECT_TRUE(all_rounds) << "the job stalled while the GCS was frozen (round "
                          << ReadText(progress_) << " of " << kRounds << ")";
  RunResult r = job.get();
  EXPECT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(KeyValue(r.out, "errors"), "0") << r.all();
  EXPECT_EQ(Status()["nodes"][0]["state"], "ALIVE");
}

TEST_F(GcsRestartTest, AHeadStartedAgainOnItsTempDirFindsItsTables) {
  auto job = RunRay(
      {"submit", "--address", address_, "--temp-dir", temp_, IT_GCS_RESTART_PLUGIN, "2", progress_},
      dir_.path(), 60);
  ASSERT_EQ(job.exit_code, 0) << job.all();
  std::string token = ReadText(session_ + "/token");
  auto tasks = RunRay({"list", "tasks", "--temp-dir", temp_}, dir_.path(), 30);
  ASSERT_EQ(tasks.exit_code, 0) << tasks.all();
  ASSERT_GT(CountLines(tasks.out, "Square"), 0) << tasks.out;

  std::string old_session = session_;
  auto stop = RunRay({"stop", "--temp-dir", temp_}, dir_.path());
  ASSERT_EQ(stop.exit_code, 0) << stop.all();
  StartHead();
  ASSERT_NE(session_, old_session);
  EXPECT_EQ(ReadText(session_ + "/token"), token) << "the stopped cluster's token is kept";
  auto again = RunRay({"list", "tasks", "--temp-dir", temp_}, dir_.path(), 30);
  ASSERT_EQ(again.exit_code, 0) << again.all();
  // Both rounds' 20 tasks each (the last events reached the GCS as the node stopped).
  EXPECT_GE(CountLines(again.out, "Square"), 40) << again.out;
  nlohmann::json status = Status();
  EXPECT_EQ(status["gcs"]["restarts"], 1) << status.dump();
  int alive = 0;
  for (const auto& n : status["nodes"]) alive += n["state"] == "ALIVE";
  EXPECT_EQ(alive, 1) << "the old head's node is DEAD, the new one ALIVE: " << status.dump();
}

}  // namespace
}  // namespace ray::testing
