// Several nodes on one machine, each with its own --temp-dir and ports: joining with
// the token, placement by resources, spillback, objects across nodes, dead nodes.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/integration/ray_harness.h"

namespace ray::testing {
namespace {

class MultiNodeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    head_ = dir_.path() + "/head";
    worker_ = dir_.path() + "/worker";
    auto head = RunRay({"start", "--head", "--port", "0", "--num-cpus", "1", "--temp-dir", head_,
                        "--heartbeat-timeout-ms", "2000"},
                       dir_.path());
    ASSERT_EQ(head.exit_code, 0) << head.all();
    nlohmann::json first = Status();
    address_ = first["address"];
    head_id_ = first["nodes"][0]["node_id"];
    token_ = ReadText(head_ + "/session_latest/token");
    auto join = RunRay({"start", "--address", address_, "--token", token_, "--num-cpus", "2",
                        "--resources", "{\"Special\": 1}", "--temp-dir", worker_},
                       dir_.path());
    ASSERT_EQ(join.exit_code, 0) << join.all();
    nlohmann::json status = Status();
    for (const auto& n : status["nodes"]) {
      if (n["node_id"] != head_id_) worker_id_ = n["node_id"];
    }
    ASSERT_FALSE(worker_id_.empty()) << status.dump();
  }
  void TearDown() override {
    RunRay({"stop", "--temp-dir", worker_}, dir_.path());
    RunRay({"stop", "--temp-dir", head_}, dir_.path());
    EXPECT_TRUE(AwaitNoProcessesMentioning(dir_.path()).empty());
  }
  nlohmann::json Status() {
    auto s = RunRay({"status", "--json", "--temp-dir", head_}, dir_.path());
    EXPECT_EQ(s.exit_code, 0) << s.all();
    return nlohmann::json::parse(s.out);
  }
  RunResult Submit(const std::string& which) {
    return RunRay({"submit", "--address", address_, "--temp-dir", head_, IT_MULTINODE_PLUGIN, which},
                  dir_.path(), 120);
  }

  TempDir dir_;
  std::string head_, worker_, address_, token_, head_id_, worker_id_;
};

TEST_F(MultiNodeTest, JoinedNodeIsListedWithItsResources) {
  auto status = Status();
  ASSERT_EQ(status["nodes"].size(), 2u);
  EXPECT_EQ(status["total"]["CPU"], 3.0);
  EXPECT_EQ(status["total"]["Special"], 1.0);
  for (const auto& n : status["nodes"]) EXPECT_EQ(n["state"], "ALIVE");
}

TEST_F(MultiNodeTest, AWrongTokenIsRefused) {
  auto bad = RunRay({"start", "--address", address_, "--token", "not-the-token", "--temp-dir",
                     dir_.path() + "/intruder"},
                    dir_.path());
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("invalid cluster token"), std::string::npos) << bad.all();
  EXPECT_EQ(Status()["nodes"].size(), 2u);
}

TEST_F(MultiNodeTest, TuneRunsTrialsOnEveryNodeAndKeepsTheirCheckpoints) {
  std::string results = dir_.path() + "/results";
  auto r = RunRay({"tune", "run", IT_TUNE_PLUGIN, "--address", address_, "--temp-dir", head_,
                   "--run", "counter", "--name", "spread", "--local-dir", results, "--config",
                   R"({"sleep_ms": 300, "rate": {"grid_search": [1, 2, 3]}})", "--stop",
                   R"({"training_iteration": 3})", "--checkpoint-at-end"},
                  dir_.path(), 120);
  ASSERT_EQ(r.exit_code, 0) << r.all();
  auto state = nlohmann::json::parse(ReadText(results + "/spread/experiment_state.json"));
  std::set<std::string> nodes;
  ASSERT_EQ(state["trials"].size(), 3u);
  for (const auto& t : state["trials"]) {
    EXPECT_EQ(t["status"], "TERMINATED");
    nodes.insert(t["last_result"]["node_id"].get<std::string>());
    EXPECT_EQ(ReadText(t["logdir"].get<std::string>() + "/checkpoint_3/count"), "3");
  }
  // Three 1-CPU trials at once on 1 + 2 CPUs: both nodes run trials.
  EXPECT_EQ(nodes, (std::set<std::string>{head_id_, worker_id_}));
}

TEST_F(MultiNodeTest, AKilledDriversJobIsReleasedOnEveryNode) {
  int pid = SpawnRay({"tune", "run", IT_TUNE_PLUGIN, "--address", address_, "--temp-dir", head_,
                      "--run", "counter", "--name", "killed", "--local-dir",
                      dir_.path() + "/results", "--config",
                      R"({"sleep_ms": 200, "rate": {"grid_search": [1, 2, 3]}})"},
                     dir_.path());
  auto cpus_available = [&] { return Status()["available"].value("CPU", 0.0); };
  bool busy = false;
  for (int i = 0; i < 100 && !busy; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    busy = cpus_available() == 0;  // a trial on every CPU of both nodes
  }
  ASSERT_TRUE(busy);
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  // The driver's node notices, and records the job's end for the others.
  double available = 0;
  for (int i = 0; i < 100 && available < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    available = cpus_available();
  }
  EXPECT_EQ(available, 3);
}

TEST_F(MultiNodeTest, CustomResourcesPinWorkToTheirNode) {
  auto r = Submit("placement");
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(KeyValue(r.out, "driver_node"), head_id_);
  EXPECT_EQ(KeyValue(r.out, "special_node"), worker_id_);
}

TEST_F(MultiNodeTest, AFullNodeSpillsToAnother) {
  auto r = Submit("spread");
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(KeyValue(r.out, "distinct_nodes"), "2");
}

TEST_F(MultiNodeTest, ObjectsCrossNodesIntact) {
  auto r = Submit("objects");
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(KeyValue(r.out, "remote_to_driver"), "intact");
  EXPECT_EQ(KeyValue(r.out, "driver_to_remote"), "intact");
}

TEST_F(MultiNodeTest, SeveralReadersCauseOneTransferPerNode) {
  auto r = Submit("readers");
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(KeyValue(r.out, "readers_agree"), "yes");
  std::string object = KeyValue(r.out, "object");
  ASSERT_FALSE(object.empty());
  std::string log = ReadText(worker_ + "/session_latest/logs/raylet.err");
  EXPECT_EQ(CountLines(log, "received object " + object), 1) << log;
}

TEST_F(MultiNodeTest, ActorsLiveWhereTheirResourcesAreAndHandlesTravel) {
  auto r = Submit("actor");
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(KeyValue(r.out, "actor_node"), worker_id_);
  EXPECT_EQ(KeyValue(r.out, "actor_calls"), "1,11");
}

TEST_F(MultiNodeTest, WorkNoNodeCanFitIsRefusedNamingTheCluster) {
  auto r = Submit("unschedulable");
  ASSERT_EQ(r.exit_code, 0) << r.all();
  std::string why = KeyValue(r.out, "unschedulable");
  EXPECT_NE(why.find("Nowhere"), std::string::npos) << why;
  EXPECT_NE(why.find("\"Special\": 1"), std::string::npos) << "names the cluster total: " << why;
}

TEST_F(MultiNodeTest, AKilledRayletIsMarkedDeadAndLeavesTheTotals) {
  auto node = nlohmann::json::parse(ReadText(worker_ + "/session_latest/node.json"));
  int raylet = node["raylet_pid"];
  ASSERT_EQ(::kill(raylet, SIGKILL), 0);
  auto start = std::chrono::steady_clock::now();
  bool dead = false;
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(15)) {
    auto status = Status();
    for (const auto& n : status["nodes"]) {
      if (n["node_id"] == worker_id_ && n["state"] == "DEAD") dead = true;
    }
    if (dead) {
      EXPECT_EQ(status["total"]["CPU"], 1.0);
      EXPECT_FALSE(status["total"].contains("Special"));
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_TRUE(dead) << "worker node not marked dead within 15 s (timeout 2 s)";
}

// The output of the one job spawned into `dir` (SpawnRay numbers its files).
std::string JobOutput(const std::string& dir, const std::string& suffix) {
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == suffix) return ReadText(e.path());
  }
  return "";
}

// A head and two nodes with resource "Lin", for jobs that lose a node.
class NodeDeathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    head_ = dir_.path() + "/head";
    auto head = RunRay({"start", "--head", "--port", "0", "--num-cpus", "1", "--temp-dir", head_,
                        "--heartbeat-timeout-ms", "2000"},
                       dir_.path());
    ASSERT_EQ(head.exit_code, 0) << head.all();
    auto status = RunRay({"status", "--json", "--temp-dir", head_}, dir_.path());
    address_ = nlohmann::json::parse(status.out)["address"];
    std::string token = ReadText(head_ + "/session_latest/token");
    for (const char* name : {"a", "b"}) {
      std::string dir = dir_.path() + "/" + name;
      auto join = RunRay({"start", "--address", address_, "--token", token, "--num-cpus", "2",
                          "--resources", "{\"Lin\": 1}", "--temp-dir", dir},
                         dir_.path());
      ASSERT_EQ(join.exit_code, 0) << join.all();
      auto node = nlohmann::json::parse(ReadText(dir + "/session_latest/node.json"));
      nodes_.push_back({dir, node["raylet_pid"]});
    }
  }
  void TearDown() override {
    if (job_ > 0 && ::waitpid(job_, nullptr, WNOHANG) == 0) {
      ::kill(job_, SIGKILL);
      ::waitpid(job_, nullptr, 0);
    }
    for (const auto& n : nodes_) RunRay({"stop", "--temp-dir", n.dir}, dir_.path());
    RunRay({"stop", "--temp-dir", head_}, dir_.path());
    EXPECT_TRUE(AwaitNoProcessesMentioning(dir_.path()).empty());
  }
  // Kills the node (its raylet and workers) whose session made the note at `path`.
  bool KillNodeThatWrote(const std::string& path) {
    std::string id = ReadText(path);
    for (const auto& n : nodes_) {
      // The raylet's log starts with its node id.
      if (id.empty() || ReadText(n.dir + "/session_latest/logs/raylet.err").find(id) == std::string::npos) {
        continue;
      }
      for (int pid : ProcessesMentioning(n.dir)) ::kill(pid, SIGKILL);
      return true;
    }
    return false;
  }
  struct Node {
    std::string dir;
    int raylet_pid;
  };
  TempDir dir_;
  std::string head_, address_;
  std::vector<Node> nodes_;
  int job_ = -1;  // a job still running at the end is killed
};

TEST_F(NodeDeathTest, ObjectsLostWithANodeAreMadeAgainFromTheirLineage) {
  std::string notes = dir_.path() + "/notes";
  ASSERT_EQ(::mkdir(notes.c_str(), 0700), 0);
  std::string job_dir = dir_.path() + "/job";
  ASSERT_EQ(::mkdir(job_dir.c_str(), 0700), 0);
  job_ = SpawnRay({"submit", "--address", address_, "--temp-dir", head_, IT_MULTINODE_PLUGIN,
                   "lineage", notes},
                  job_dir);
  // Both blobs are made (on the same node) and not yet read by the driver.
  for (int i = 0; i < 600 && JobOutput(job_dir, ".out").find("made") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::string first_node = ReadText(notes + "/first");
  ASSERT_FALSE(first_node.empty()) << "the first task did not run within 60 s";
  ASSERT_EQ(ReadText(notes + "/second"), first_node) << "both tasks run on one node";
  ASSERT_TRUE(KillNodeThatWrote(notes + "/first"));
  ::remove((notes + "/first").c_str());
  ::remove((notes + "/second").c_str());
  std::ofstream(notes + "/go") << "go";
  int status = 0;
  for (int i = 0; i < 1200 && ::waitpid(job_, &status, WNOHANG) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(WIFEXITED(status)) << "the job did not end within 120 s";
  job_ = -1;
  std::string out = JobOutput(job_dir, ".out");
  EXPECT_EQ(WEXITSTATUS(status), 0) << out << JobOutput(job_dir, ".err");
  EXPECT_EQ(KeyValue(out, "first"), "intact") << out;
  EXPECT_EQ(KeyValue(out, "second"), "intact") << out;
  // Both tasks ran again, on the node left.
  EXPECT_FALSE(ReadText(notes + "/first").empty());
  EXPECT_NE(ReadText(notes + "/first"), first_node);
  EXPECT_NE(ReadText(notes + "/second"), first_node);
}

}  // namespace
}  // namespace ray::testing
