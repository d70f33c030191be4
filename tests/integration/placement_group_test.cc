// Placement groups with real clusters: one node of 4 CPUs for the lifecycle, and
// three nodes (2 CPUs each; the two joined ones also have {"Special": 1}) where every
// strategy is checked by the node ids its bundles and tasks land on.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/integration/ray_harness.h"

namespace ray::testing {
namespace {

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}

class PlacementGroupTest : public ::testing::Test {
 protected:
  // Starts the head, then joins `workers` nodes of 2 CPUs and {"Special": 1}.
  void StartCluster(int head_cpus, int workers) {
    head_ = dir_.path() + "/head";
    auto head = RunRay({"start", "--head", "--port", "0", "--num-cpus", std::to_string(head_cpus),
                        "--temp-dir", head_, "--heartbeat-timeout-ms", "2000"},
                       dir_.path());
    ASSERT_EQ(head.exit_code, 0) << head.all();
    nlohmann::json first = Status();
    address_ = first["address"];
    nodes_.insert(first["nodes"][0]["node_id"].get<std::string>());
    std::string token = ReadText(head_ + "/session_latest/token");
    for (int i = 0; i < workers; ++i) {
      std::string temp = dir_.path() + "/worker" + std::to_string(i);
      auto join = RunRay({"start", "--address", address_, "--token", token, "--num-cpus", "2",
                          "--resources", "{\"Special\": 1}", "--temp-dir", temp},
                         dir_.path());
      ASSERT_EQ(join.exit_code, 0) << join.all();
      workers_.push_back(temp);
      nlohmann::json status = Status();
      for (const auto& n : status["nodes"]) {
        std::string id = n["node_id"];
        if (!nodes_.count(id)) worker_ids_[temp] = id;
        nodes_.insert(id);
      }
    }
    ASSERT_EQ(nodes_.size(), static_cast<size_t>(workers + 1));
    ASSERT_EQ(worker_ids_.size(), static_cast<size_t>(workers));
  }
  void TearDown() override {
    for (const auto& w : workers_) RunRay({"stop", "--temp-dir", w}, dir_.path());
    if (!head_.empty()) RunRay({"stop", "--temp-dir", head_}, dir_.path());
    EXPECT_TRUE(AwaitNoProcessesMentioning(dir_.path()).empty());
  }
  nlohmann::json Status() {
    auto s = RunRay({"status", "--json", "--temp-dir", head_}, dir_.path());
    EXPECT_EQ(s.exit_code, 0) << s.all();
    return nlohmann::json::parse(s.out);
  }
  RunResult Submit(const std::vector<std::string>& args) {
    std::vector<std::string> cmd = {"submit", "--address", address_, "--temp-dir", head_,
                                    IT_PG_PLUGIN};
    cmd.insert(cmd.end(), args.begin(), args.end());
    return RunRay(cmd, dir_.path(), 120);
  }
  nlohmann::json Groups() {
    auto r = RunRay({"list", "placement-groups", "--json", "--temp-dir", head_}, dir_.path());
    EXPECT_EQ(r.exit_code, 0) << r.all();
    return nlohmann::json::parse(r.out);
  }

  TempDir dir_;
  std::string head_, address_;
  std::vector<std::string> workers_;
  std::set<std::string> nodes_;
  std::map<std::string, std::string> worker_ids_;  // temp dir -> node id
};

TEST_F(PlacementGroupTest, ReservesRunsTasksAndActorsInBundlesAndRemoves) {
  StartCluster(4, 0);
  auto r = Submit({"lifecycle"});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  const std::string& out = r.out;
  EXPECT_EQ(KeyValue(out, "created"), "yes") << r.all();
  EXPECT_EQ(KeyValue(out, "id_length"), "36");
  EXPECT_EQ(KeyValue(out, "free_cpus_reserved"), "2");  // 4 less the two bundles
  EXPECT_EQ(KeyValue(out, "by_name"), "same");
  EXPECT_EQ(KeyValue(out, "bundle_resource"), "yes");
  EXPECT_EQ(KeyValue(out, "task_in_bundle"), "ran");
  EXPECT_EQ(KeyValue(out, "task_in_any_bundle"), "ran");
  EXPECT_EQ(KeyValue(out, "actor_in_bundle"), "ran");
  EXPECT_NE(KeyValue(out, "too_big").find("more than bundle 0"), std::string::npos) << out;
  EXPECT_NE(KeyValue(out, "bad_index").find("out of range"), std::string::npos) << out;
  EXPECT_EQ(KeyValue(out, "listed"), "CREATED/PACK/pg1");
  EXPECT_EQ(KeyValue(out, "state_after_remove"), "REMOVED");
  EXPECT_EQ(KeyValue(out, "free_cpus_released"), "4");
  EXPECT_NE(KeyValue(out, "actor_after_remove").find("was removed"), std::string::npos) << out;
  EXPECT_NE(KeyValue(out, "task_after_remove").find("TaskPlacementGroupRemoved"),
            std::string::npos)
      << out;
  EXPECT_EQ(KeyValue(out, "by_name_after_remove"), "none") << out;
  EXPECT_EQ(KeyValue(out, "wait_after_remove"), "false");
}

TEST_F(PlacementGroupTest, WhatATaskOrActorThatCapturesSubmitsRunsInItsGroup) {
  StartCluster(2, 0);
  auto r = Submit({"capture"});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(KeyValue(r.out, "ready"), "yes") << r.all();
  EXPECT_EQ(KeyValue(r.out, "free_cpus"), "0") << r.all();
  EXPECT_EQ(KeyValue(r.out, "task_captures"), "ran") << r.all();
  EXPECT_EQ(KeyValue(r.out, "actor_captures"), "ran") << r.all();
  EXPECT_EQ(KeyValue(r.out, "task_does_not"), "waited") << r.all();
  EXPECT_EQ(KeyValue(r.out, "one_ready"), "yes") << r.all();
  EXPECT_EQ(KeyValue(r.out, "one_bundle_captures"), "ran") << r.all();
}

TEST_F(PlacementGroupTest, AGroupThatDoesNotFitNowWaitsAndItsTasksWithIt) {
  StartCluster(4, 0);
  auto r = Submit({"pending"});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(KeyValue(r.out, "first"), "created") << r.all();
  EXPECT_EQ(KeyValue(r.out, "second_waits"), "yes");
  EXPECT_EQ(KeyValue(r.out, "second_state"), "PENDING");
  EXPECT_EQ(KeyValue(r.out, "second"), "created");
  EXPECT_EQ(KeyValue(r.out, "task_ran"), "yes");
}

TEST_F(PlacementGroupTest, AGroupNoClusterCouldHoldIsRefusedWithTheReason) {
  StartCluster(4, 0);
  auto r = Submit({"refused"});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  const std::string& out = r.out;
  EXPECT_NE(KeyValue(out, "too_big").find("bundle 0 {\"CPU\": 64} is larger than any node"),
            std::string::npos)
      << out;
  EXPECT_NE(KeyValue(out, "strict_spread").find("STRICT_SPREAD needs 2 distinct nodes"),
            std::string::npos)
      << out;
  EXPECT_NE(KeyValue(out, "strict_pack").find("STRICT_PACK needs one node"), std::string::npos)
      << out;
  EXPECT_NE(KeyValue(out, "empty").find("at least one bundle"), std::string::npos) << out;
  EXPECT_NE(KeyValue(out, "empty_bundle").find("bundle 0 reserves nothing"), std::string::npos)
      << out;
  EXPECT_NE(KeyValue(out, "negative").find("may not be negative"), std::string::npos) << out;
  EXPECT_NE(KeyValue(out, "duplicate_name").find("'taken' is taken"), std::string::npos) << out;
  EXPECT_EQ(KeyValue(out, "unknown_name"), "none") << out;
}

TEST_F(PlacementGroupTest, AJobsGroupsAreRemovedWhenItEndsAndListedThen) {
  StartCluster(4, 0);
  auto r = Submit({"leave"});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  ASSERT_EQ(KeyValue(r.out, "created"), "yes") << r.all();
  std::string id = KeyValue(r.out, "id");
  nlohmann::json found;
  for (int i = 0; i < 100 && found.is_null(); ++i) {
    nlohmann::json groups = Groups();
    for (const auto& g : groups) {
      if (g["placement_group_id"] == id && g["state"] == "REMOVED") found = g;
    }
    if (found.is_null()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(found.is_null()) << Groups().dump();
  EXPECT_EQ(found["name"], "left");
  EXPECT_EQ(found["strategy"], "PACK");
  EXPECT_NE(found["detail"].get<std::string>().find("job"), std::string::npos);
  // Its CPU is free again.
  double cpus = 0;
  for (int i = 0; i < 50 && cpus != 4; ++i) {
    cpus = Status()["available"].value("CPU", 0.0);
    if (cpus != 4) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(cpus, 4);
  auto table = RunRay({"list", "placement-groups", "--temp-dir", head_}, dir_.path());
  EXPECT_NE(table.out.find(id), std::string::npos) << table.all();
}

TEST_F(PlacementGroupTest, EveryStrategyPlacesBundlesOnTheNodesItPromises) {
  StartCluster(2, 2);
  auto r = Submit({"strategies"});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  auto check = [&](const std::string& key, size_t bundles, size_t distinct) {
    SCOPED_TRACE(key);
    EXPECT_EQ(KeyValue(r.out, key + "_ready"), "yes") << r.all();
    auto where = Split(KeyValue(r.out, key + "_bundles"));
    auto ran = Split(KeyValue(r.out, key + "_tasks"));
    ASSERT_EQ(where.size(), bundles) << r.out;
    // Each task ran on its bundle's node, a node of the cluster.
    EXPECT_EQ(ran, where);
    for (const auto& n : where) EXPECT_TRUE(nodes_.count(n)) << n;
    EXPECT_EQ(std::set<std::string>(where.begin(), where.end()).size(), distinct) << r.out;
  };
  check("pack", 2, 1);           // both fit one 2-CPU node
  check("spread", 3, 3);         // one per node
  check("strict_pack", 2, 1);
  check("strict_spread", 3, 3);
  EXPECT_NE(KeyValue(r.out, "strict_spread_4").find("STRICT_SPREAD needs 4 distinct nodes"),
            std::string::npos)
      << r.out;
  auto actor_bundles = Split(KeyValue(r.out, "actors_bundles"));
  EXPECT_EQ(Split(KeyValue(r.out, "actors")), actor_bundles) << r.out;
  EXPECT_EQ(std::set<std::string>(actor_bundles.begin(), actor_bundles.end()).size(), 3u);
}

TEST_F(PlacementGroupTest, AGroupWhoseNodeDiesIsPlacedAgain) {
  StartCluster(2, 2);
  std::string job = dir_.path() + "/job";
  std::filesystem::create_directories(job);
  int pid = SpawnRay({"submit", "--address", address_, "--temp-dir", head_, IT_PG_PLUGIN, "hold",
                      dir_.path()},
                     job);
  struct Reap {  // the job ends (told to go on, or killed) whatever the test's outcome
    int pid;
    std::string go;
    ~Reap() {
      std::ofstream(go) << "go";
      for (int i = 0; i < 300 && ::waitpid(pid, nullptr, WNOHANG) == 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      if (::waitpid(pid, nullptr, WNOHANG) == 0) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
      }
    }
  } reap{pid, dir_.path() + "/go"};
  std::string first_node;
  for (int i = 0; i < 200 && first_node.empty(); ++i) {
    first_node = KeyValue(SpawnedOutput(job, ".out"), "node");
    if (first_node.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(first_node.empty()) << SpawnedOutput(job, ".out") << SpawnedOutput(job, ".err");
  // Stop the node holding the bundle: the other "Special" node takes it.
  std::string victim;
  for (const auto& [temp, id] : worker_ids_) {
    if (id == first_node) victim = temp;
  }
  ASSERT_FALSE(victim.empty()) << first_node;
  auto stop = RunRay({"stop", "--temp-dir", victim}, dir_.path());
  ASSERT_EQ(stop.exit_code, 0) << stop.all();
  std::string now;
  for (int i = 0; i < 200; ++i) {
    nlohmann::json groups = Groups();
    for (const auto& g : groups) {
      if (g["name"] == "held" && g["state"] == "CREATED" && g["bundle_node_ids"][0] != first_node) {
        now = g["bundle_node_ids"][0];
      }
    }
    if (!now.empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::ofstream(dir_.path() + "/go") << "go";
  int status = 0;
  for (int i = 0; i < 600 && ::waitpid(pid, &status, WNOHANG) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::string out = SpawnedOutput(job, ".out");
  ASSERT_FALSE(now.empty()) << Groups().dump() << out;
  EXPECT_NE(now, first_node);
  EXPECT_TRUE(nodes_.count(now));
  EXPECT_EQ(KeyValue(out, "again"), "yes") << out;
  EXPECT_EQ(KeyValue(out, "node_now"), now) << out;
  EXPECT_EQ(KeyValue(out, "task_node"), now) << out;
}

}  // namespace
}  // namespace ray::testing
