// Several nodes on one machine, each with its own --temp-dir and ports: joining with
// the token, placement by resources, spillback, objects across nodes, dead nodes.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <sys/stat.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
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

// A head and seven nodes, each with a resource of its own ("R1".."R7"), for one
// object read everywhere at once.
class BroadcastTest : public ::testing::Test {
 protected:
  static constexpr int kReaders = 7;
  void SetUp() override {
    head_ = dir_.path() + "/head";
    auto head = RunRay({"start", "--head", "--port", "0", "--num-cpus", "1", "--temp-dir", head_},
                       dir_.path());
    ASSERT_EQ(head.exit_code, 0) << head.all();
    auto status = RunRay({"status", "--json", "--temp-dir", head_}, dir_.path());
    address_ = nlohmann::json::parse(status.out)["address"];
    std::string token = ReadText(head_ + "/session_latest/token");
    for (int i = 1; i <= kReaders; ++i) {
      std::string dir = dir_.path() + "/r" + std::to_string(i);
      auto join = RunRay({"start", "--address", address_, "--token", token, "--num-cpus", "1",
                          "--resources", "{\"R" + std::to_string(i) + "\": 1}", "--temp-dir", dir},
                         dir_.path());
      ASSERT_EQ(join.exit_code, 0) << join.all();
      nodes_.push_back(dir);
    }
  }
  void TearDown() override {
    for (const auto& n : nodes_) RunRay({"stop", "--temp-dir", n}, dir_.path());
    RunRay({"stop", "--temp-dir", head_}, dir_.path());
    EXPECT_TRUE(AwaitNoProcessesMentioning(dir_.path()).empty());
  }
  TempDir dir_;
  std::string head_, address_;
  std::vector<std::string> nodes_;
};

// Seven nodes read one object at once: each gets it intact, in one transfer, from the
// head or (those that waited for their turn there) from a node the head had sent it
// to; where each copy came from is printed, not checked (it depends on timing).
TEST_F(BroadcastTest, AnObjectReadEverywhereAtOnceArrivesIntactOnEveryNode) {
  auto r = RunRay({"submit", "--address", address_, "--temp-dir", head_, IT_MULTINODE_PLUGIN,
                   "broadcast", std::to_string(kReaders)},
                  dir_.path(), 120);
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(KeyValue(r.out, "broadcast_intact"), std::to_string(kReaders)) << r.all();
  std::string object = KeyValue(r.out, "object");
  ASSERT_FALSE(object.empty());
  std::string head_log = ReadText(head_ + "/session_latest/logs/raylet.err");
  int from_peers = 0;
  for (const auto& n : nodes_) {
    std::string log = ReadText(n + "/session_latest/logs/raylet.err");
    EXPECT_EQ(CountLines(log, "received object " + object), 1) << n << ": " << log;
    size_t at = log.find("received object " + object);
    size_t from = log.find("from node ", at);
    if (at != std::string::npos && from != std::string::npos &&
        head_log.find("raylet " + log.substr(from + 10, 32) + " serving") == std::string::npos) {
      ++from_peers;
    }
  }
  std::printf("copies from other nodes than the head: %d of %d\n", from_peers, kReaders);
}

TEST_F(MultiNodeTest, ActorsLiveWhereTheirResourcesAreAndHandlesTravel) {
  auto r = Submit("actor");
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(KeyValue(r.out, "actor_node"), worker_id_);
  EXPECT_EQ(KeyValue(r.out, "actor_calls"), "1,11");
}

TEST_F(MultiNodeTest, AnActorsChildOnAnotherNodeDiesWithIt) {
  auto r = Submit("owned_elsewhere");
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(KeyValue(r.out, "child_node"), worker_id_);
  EXPECT_NE(KeyValue(r.out, "maker_node"), worker_id_);
  EXPECT_EQ(KeyValue(r.out, "child_after_maker_killed"), "died") << r.all();
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

// A head and two nodes with resource "Lin", for jobs that lose a node.
class NodeDeathTest : public ::testing::Test {
 protected:
  void SetUp() override {
    head_ = dir_.path() + "/head";
    std::vector<std::string> start = {"start", "--head", "--port", "0", "--num-cpus", "1",
                                      "--temp-dir", head_, "--heartbeat-timeout-ms", heartbeat_timeout_ms_};
    if (!head_store_.empty()) {
      start.insert(start.end(), {"--object-store-memory", head_store_});
    }
    auto head = RunRay(start, dir_.path());
    ASSERT_EQ(head.exit_code, 0) << head.all();
    auto status = RunRay({"status", "--json", "--temp-dir", head_}, dir_.path());
    address_ = nlohmann::json::parse(status.out)["address"];
    std::string token = ReadText(head_ + "/session_latest/token");
    for (const char* name : {"a", "b"}) {
      std::string dir = dir_.path() + "/" + name;
      // Each node also has a resource named after it ("A", "B"), to pin work to it.
      std::string resources =
          std::string("{\"Lin\": 1, \"") + char(std::toupper(*name)) + "\": 1}";
      std::vector<std::string> join_args = {"start", "--address", address_, "--token", token,
                                            "--num-cpus", "2", "--resources", resources,
                                            "--temp-dir", dir};
      if (!node_store_.empty()) {
        join_args.insert(join_args.end(), {"--object-store-memory", node_store_});
      }
      auto join = RunRay(join_args, dir_.path());
      ASSERT_EQ(join.exit_code, 0) << join.all();
      nodes_.push_back(dir);
    }
  }
  void TearDown() override {
    if (job_ > 0 && ::waitpid(job_, nullptr, WNOHANG) == 0) {
      ::kill(job_, SIGKILL);
      ::waitpid(job_, nullptr, 0);
    }
    for (const auto& n : nodes_) RunRay({"stop", "--temp-dir", n}, dir_.path());
    RunRay({"stop", "--temp-dir", head_}, dir_.path());
    EXPECT_TRUE(AwaitNoProcessesMentioning(dir_.path()).empty());
  }
  // Kills the node (its raylet and workers) whose session made the note at `path`.
  bool KillNodeThatWrote(const std::string& path) {
    std::string id = ReadText(path);
    for (const auto& n : nodes_) {
      // The raylet's log starts with its node id (other nodes' ids come later).
      if (id.empty() || ReadText(n + "/session_latest/logs/raylet.err")
                                .find("raylet " + id + " serving") == std::string::npos) {
        continue;
      }
      for (int pid : ProcessesMentioning(n)) ::kill(pid, SIGKILL);
      return true;
    }
    return false;
  }
  // Submits the multinode plugin's `which` case with a notes dir, and waits until it
  // prints "made".
  void StartJob(const std::string& which) {
    notes_ = dir_.path() + "/notes";
    std::string job_dir = dir_.path() + "/job";
    ASSERT_EQ(::mkdir(notes_.c_str(), 0700), 0);
    ASSERT_EQ(::mkdir(job_dir.c_str(), 0700), 0);
    job_ = SpawnRay({"submit", "--address", address_, "--temp-dir", head_, IT_MULTINODE_PLUGIN,
                     which, notes_},
                    job_dir);
    for (int i = 0; i < 600 && SpawnedOutput(job_dir, ".out").find("made") == std::string::npos; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_NE(SpawnedOutput(job_dir, ".out").find("made"), std::string::npos)
        << "not made within 60 s: " << SpawnedOutput(job_dir, ".err");
  }
  // Lets the job go on (<notes>/go), waits for it to end and returns its output; the
  // test fails if it does not end within 120 s or fails.
  std::string FinishJob() {
    std::string job_dir = dir_.path() + "/job";
    if (!notes_.empty()) std::ofstream(notes_ + "/go") << "go";
    int status = 0;
    for (int i = 0; i < 1200 && ::waitpid(job_, &status, WNOHANG) == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_TRUE(WIFEXITED(status)) << "the job did not end within 120 s";
    if (!WIFEXITED(status)) return "";
    job_ = -1;
    EXPECT_EQ(WEXITSTATUS(status), 0) << SpawnedOutput(job_dir, ".err");
    return SpawnedOutput(job_dir, ".out");
  }
  // Whether the head's raylet has marked the node whose session made the note at
  // `path` DEAD (its log says so), within 15 s.
  bool HeadSawDeathOfNodeThatWrote(const std::string& path) {
    std::string line = "node " + ReadText(path) + " is dead";
    for (int i = 0; i < 150; ++i) {
      if (ReadText(head_ + "/session_latest/logs/raylet.err").find(line) != std::string::npos) {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }
  // Kills the node that made <notes>/first, whose objects have copies elsewhere, and
  // waits for the head to mark it DEAD: nothing is made again then. Removes the note
  // (a task made again writes it anew).
  void KillTheMakerWhileCopiesLive() {
    ASSERT_TRUE(KillNodeThatWrote(notes_ + "/first"));
    ASSERT_TRUE(HeadSawDeathOfNodeThatWrote(notes_ + "/first"));
    std::string head_log = ReadText(head_ + "/session_latest/logs/raylet.err");
    EXPECT_EQ(head_log.find("again to make it"), std::string::npos) << "nothing made again eagerly";
    ::remove((notes_ + "/first").c_str());
  }
  TempDir dir_;
  std::string head_store_;  // the head's --object-store-memory ("": the default)
  std::string node_store_;  // the other nodes' (the same)
  std::string heartbeat_timeout_ms_ = "2000";  // the head's --heartbeat-timeout-ms
  std::string head_, address_;
  std::vector<std::string> nodes_;  // their temp dirs
  int job_ = -1;  // a job still running at the end is killed
  std::string notes_;  // where the job's tasks note their node
};

// The pid of the raylet of the node with temp dir `node_dir`.
int RayletPid(const std::string& node_dir) {
  auto node = nlohmann::json::parse(ReadText(node_dir + "/session_latest/node.json"));
  return node["raylet_pid"];
}

// Nodes that miss heartbeats for a while stay alive (their raylets are stopped).
class StoppedRayletsTest : public NodeDeathTest {
 protected:
  StoppedRayletsTest() { heartbeat_timeout_ms_ = "60000"; }
  // Checks that the job's work (its note <notes>/first names the node it ran on) is
  // on node a; stops the head's raylet and node a's, lets the job go on (<notes>/go),
  // and returns its output once it prints `key`= (within 30 s), then resumes them.
  std::string OutputWithRayletsStopped(const std::string& key) {
    std::string node_a = nodes_[0];  // "a", the node with resource "A"
    EXPECT_NE(ReadText(node_a + "/session_latest/logs/raylet.err")
                  .find("raylet " + ReadText(notes_ + "/first") + " serving"),
              std::string::npos) << "the work is not on node a";
    const int raylets[] = {RayletPid(head_), RayletPid(node_a)};
    for (int pid : raylets) EXPECT_EQ(::kill(pid, SIGSTOP), 0);
    std::ofstream(notes_ + "/go") << "go";
    std::string out;
    for (int i = 0; i < 300 && out.find(key + "=") == std::string::npos; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      out = SpawnedOutput(dir_.path() + "/job", ".out");
    }
    for (int pid : raylets) ::kill(pid, SIGCONT);
    return out;
  }
};

// Calls to an actor on another node go straight to its worker: with both raylets
// stopped, 500 calls run and come back in order.
TEST_F(StoppedRayletsTest, CallsToAnActorOnAnotherNodeNeedNeitherRaylet) {
  StartJob("direct_remote");
  std::string out = OutputWithRayletsStopped("direct_calls");
  EXPECT_EQ(KeyValue(out, "direct_calls"), "in_order") << out;
  std::ofstream(notes_ + "/resumed") << "go";
  notes_.clear();  // (go was given)
  // A large result of a direct call comes back through the actor's node's store.
  EXPECT_EQ(KeyValue(FinishJob(), "big_result"), "intact");
}

// Tasks pinned to another node go straight to workers leased there: with both raylets
// stopped, 500 tasks sent to those workers run and return.
TEST_F(StoppedRayletsTest, TasksOnWorkersLeasedOnAnotherNodeNeedNeitherRaylet) {
  StartJob("leased_remote");
  std::string out = OutputWithRayletsStopped("leased_tasks");
  EXPECT_EQ(KeyValue(out, "leased_tasks"), "all_returned") << out;
  notes_.clear();  // (go was given)
  FinishJob();
}

// A task running on a worker leased on another node fails promptly with
// WorkerCrashedError when that node dies (the caller's raylet tells it), not at its
// timeout.
TEST_F(NodeDeathTest, ATaskOnAWorkerLeasedOnANodeThatDiesFails) {
  StartJob("leased_remote_dies");
  ASSERT_TRUE(KillNodeThatWrote(notes_ + "/first"));
  notes_.clear();
  std::string out = FinishJob();
  std::string result = KeyValue(out, "in_flight_task");
  EXPECT_EQ(result.rfind("worker_crashed:", 0), 0u) << out;
  // (Told as a leased worker's death: a task forwarded through the raylets would say
  // "node ... died while running".)
  EXPECT_NE(result.find("died unexpectedly (its node"), std::string::npos) << out;
}

// A call running on an actor on another node, called directly, fails promptly with
// ActorDiedError when that node dies (the caller's raylet tells it), not at its timeout.
TEST_F(NodeDeathTest, ADirectCallToAnActorWhoseNodeDiesFails) {
  StartJob("direct_remote_dies");
  ASSERT_TRUE(KillNodeThatWrote(notes_ + "/first"));
  notes_.clear();
  std::string out = FinishJob();
  EXPECT_EQ(KeyValue(out, "in_flight_call").rfind("actor_died:", 0), 0u) << out;
}

TEST_F(NodeDeathTest, ObjectsLostWithANodeAreMadeAgainFromTheirLineage) {
  StartJob("lineage");
  std::string first_node = ReadText(notes_ + "/first");
  ASSERT_FALSE(first_node.empty()) << "the first task did not run";
  ASSERT_EQ(ReadText(notes_ + "/second"), first_node) << "both tasks run on one node";
  ASSERT_TRUE(KillNodeThatWrote(notes_ + "/first"));
  ::remove((notes_ + "/first").c_str());
  ::remove((notes_ + "/second").c_str());
  std::string out = FinishJob();
  EXPECT_EQ(KeyValue(out, "first"), "intact") << out;
  EXPECT_EQ(KeyValue(out, "second"), "intact") << out;
  // Both tasks ran again, on the node left.
  EXPECT_FALSE(ReadText(notes_ + "/first").empty());
  EXPECT_NE(ReadText(notes_ + "/first"), first_node);
  EXPECT_NE(ReadText(notes_ + "/second"), first_node);
}

TEST_F(NodeDeathTest, APutLostWithItsNodeIsAnObjectLostErrorNamingIt) {
  StartJob("lost_put");
  ASSERT_TRUE(KillNodeThatWrote(notes_ + "/first"));
  std::string out = FinishJob();
  std::string why = KeyValue(out, "lost_put");
  EXPECT_NE(why.find("put by a task on node " + ReadText(notes_ + "/first")), std::string::npos)
      << out;
}

TEST_F(NodeDeathTest, ReadersOfAnObjectWhoseOwnerNodeDiedFailPromptlyNamingIt) {
  // Results of tasks submitted on a node, living only there, read by the driver here
  // once that node is killed: Wait and Get end once the node is DEAD (heartbeat
  // timeout 2 s), not at their 30 s timeout.
  StartJob("owner_died");
  std::string owner = ReadText(notes_ + "/first");
  ASSERT_FALSE(owner.empty());
  ASSERT_EQ(ReadText(notes_ + "/made0"), owner) << "the tasks ran on their submitter's node";
  ASSERT_EQ(ReadText(notes_ + "/made1"), owner);
  ASSERT_TRUE(KillNodeThatWrote(notes_ + "/first"));
  std::string out = FinishJob();
  std::string why = KeyValue(out, "owner_died");
  ASSERT_FALSE(KeyValue(out, "get_seconds").empty()) << out;
  EXPECT_NE(why.find("object " + KeyValue(out, "object")), std::string::npos) << out;
  EXPECT_NE(why.find("submitted on node " + owner), std::string::npos) << out;
  EXPECT_NE(why.find("died"), std::string::npos) << out;
  EXPECT_EQ(KeyValue(out, "wait_ready"), "1") << out;
  EXPECT_LT(std::stod(KeyValue(out, "wait_seconds")), 10) << out;
  EXPECT_LT(std::stod(KeyValue(out, "get_seconds")), 10) << out;
}

// The same with an 8 MiB store on the head, to evict its copies.
class LazyRebuildTest : public NodeDeathTest {
 protected:
  LazyRebuildTest() { head_store_ = std::to_string(8 << 20); }
};

TEST_F(LazyRebuildTest, ObjectsWithNoCopyLeftAreMadeAgainWhenRead) {
  // Two blobs (the second made from the first) on a node, copied to the head by the
  // driver's reads. The node dies: the head has copies, so nothing is made again then.
  // Its copies are then evicted: reading the second makes it again from its lineage,
  // and through its argument the first too.
  StartJob("lazy");
  std::string out_before = SpawnedOutput(dir_.path() + "/job", ".out");
  EXPECT_EQ(KeyValue(out_before, "before"), "intact") << out_before;
  std::string made_on = ReadText(notes_ + "/first");
  ASSERT_EQ(ReadText(notes_ + "/second"), made_on) << "both tasks run on one node";
  ASSERT_NO_FATAL_FAILURE(KillTheMakerWhileCopiesLive());
  ::remove((notes_ + "/second").c_str());
  std::string out = FinishJob();
  EXPECT_EQ(KeyValue(out, "after"), "intact") << out;
  std::string head_log = ReadText(head_ + "/session_latest/logs/raylet.err");
  EXPECT_TRUE(std::regex_search(head_log, std::regex("object store full: evicted [1-9]")))
      << head_log;
  EXPECT_EQ(CountLines(head_log, "has no copy left on a live node: running task"), 2) << head_log;
  // Both ran again, on the node left.
  EXPECT_FALSE(ReadText(notes_ + "/first").empty());
  EXPECT_NE(ReadText(notes_ + "/first"), made_on);
  EXPECT_NE(ReadText(notes_ + "/second"), made_on);
}

// The same with 8 MiB stores on the other nodes, to evict a reader's copy there.
class ThirdNodeReaderTest : public NodeDeathTest {
 protected:
  ThirdNodeReaderTest() { node_store_ = std::to_string(8 << 20); }
};

TEST_F(ThirdNodeReaderTest, AReaderOnAThirdNodeHasItsOwnerMakeItAgain) {
  // The driver (the head: the owner) has a blob made on one node; a task on the other
  // node reads it there. The first node dies: the reader's node has a copy, so nothing
  // is made again then. The reader's copy is evicted; a task there reads the blob
  // again: its node asks the owner, which makes it again from its lineage.
  StartJob("third_reader");
  std::string out_before = SpawnedOutput(dir_.path() + "/job", ".out");
  EXPECT_EQ(KeyValue(out_before, "before"), "intact") << out_before;
  std::string made_on = ReadText(notes_ + "/first");
  ASSERT_FALSE(made_on.empty());
  ASSERT_NO_FATAL_FAILURE(KillTheMakerWhileCopiesLive());
  std::string out = FinishJob();
  EXPECT_EQ(KeyValue(out, "after"), "intact") << out;
  std::string head_log = ReadText(head_ + "/session_latest/logs/raylet.err");
  EXPECT_EQ(CountLines(head_log, "has no copy left on a live node: running task"), 1) << head_log;
  // The reader's node evicted its copy, then asked the owner.
  std::string reader_log;
  for (const auto& n : nodes_) {
    std::string log = ReadText(n + "/session_latest/logs/raylet.err");
    if (log.find("asking its owner") != std::string::npos) reader_log = log;
  }
  EXPECT_TRUE(std::regex_search(reader_log, std::regex("object store full: evicted [1-9]")))
      << reader_log;
  // Made again on the node left.
  EXPECT_FALSE(ReadText(notes_ + "/first").empty());
  EXPECT_NE(ReadText(notes_ + "/first"), made_on);
}

TEST_F(NodeDeathTest, AJobOfRoundsFinishesCorrectlyWhenANodeDies) {
  // Rounds of 40 tasks and a 4 MiB object, spread over the nodes; one node dies at 3 s.
  std::string job_dir = dir_.path() + "/job";
  ASSERT_EQ(::mkdir(job_dir.c_str(), 0700), 0);
  job_ = SpawnRay({"submit", "--address", address_, "--temp-dir", head_, IT_MULTINODE_PLUGIN,
                   "rounds", "8", "100"},
                  job_dir);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  for (int pid : ProcessesMentioning(nodes_[0])) ::kill(pid, SIGKILL);
  std::string out = FinishJob();
  EXPECT_EQ(KeyValue(out, "wrong"), "0") << out;
  EXPECT_NE(KeyValue(out, "rounds"), "0") << out;
}

}  // namespace
}  // namespace ray::testing
