// Autoscaling rounds (runtime/cluster/autoscaler.h) driven by method calls over a
// provider double and a setups double, with time passed in: launches in batches,
// provider errors, setups started once and never cut off, the pause after a failed
// setup, idle removal with ray stopped first, and the recovery of nodes left
// mid-setup or whose raylet went missing.

#include "runtime/cluster/autoscaler.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "runtime/cluster/node_setup.h"

namespace ray::cluster {
namespace {

// Nodes in memory; every call recorded; failures on demand.
class FakeProvider : public NodeProvider {
 public:
  Result<std::vector<ProviderNode>> NonTerminatedNodes(const Tags& filter) override {
    if (fail_list) return Status::Unavailable("the cloud is down");
    std::vector<ProviderNode> out;
    for (const auto& [id, n] : nodes) {
      if (TagsMatch(n.tags, filter)) out.push_back(n);
    }
    return out;
  }
  Result<std::vector<std::string>> CreateNodes(const NodeType& type, const Tags& tags,
                                               int count) override {
    creates.push_back(count);
    if (fail_create) return Status::Unavailable("quota exceeded");
    std::vector<std::string> ids;
    for (int i = 0; i < count; ++i) {
      std::string id = "10.0.0." + std::to_string(++made);
      nodes[id] = {id, id, tags, ""};
      ids.push_back(id);
    }
    return ids;
  }
  Status SetNodeTags(const std::string& id, const Tags& tags) override {
    for (const auto& [k, v] : tags) nodes[id].tags[k] = v;
    return Status::Ok();
  }
  Status TerminateNodes(const std::vector<std::string>& ids) override {
    for (const auto& id : ids) {
      nodes.erase(id);
      terminated.push_back(id);
    }
    return Status::Ok();
  }

  std::map<std::string, ProviderNode> nodes;
  std::vector<int> creates;
  std::vector<std::string> terminated;
  bool fail_list = false, fail_create = false;
  int made = 0;
};

class FakeSetups : public NodeSetups {
 public:
  void Start(const ProviderNode& node, UpdateOptions options) override {
    started.push_back({node.id, options});
    busy.insert(node.id);
  }
  bool Busy(const std::string& id) const override { return busy.count(id) > 0; }
  std::map<std::string, Status> Finished() override {
    auto out = std::move(finished);
    finished.clear();
    for (const auto& [id, st] : out) busy.erase(id);
    return out;
  }
  void StopRay(const ProviderNode& node) override { stopped.push_back(node.id); }

  std::vector<std::pair<std::string, UpdateOptions>> started;
  std::set<std::string> busy;
  std::map<std::string, Status> finished;
  std::vector<std::string> stopped;
};

ClusterConfig Config(int min_workers, int max_workers, double idle_minutes = 5) {
  std::string yaml = "cluster_name: t\nmax_workers: " + std::to_string(max_workers) +
                     "\nidle_timeout_minutes: " + std::to_string(idle_minutes) +
                     "\nprovider: {type: external, module: /x.so}\n"
                     "auth: {ssh_user: u}\n"
                     "available_node_types:\n"
                     "  head: {resources: {CPU: 1}}\n"
                     "  cpu: {resources: {CPU: 2}, min_workers: " +
                     std::to_string(min_workers) +
                     ", max_workers: " + std::to_string(max_workers) + "}\n"
                     "head_node_type: head\n";
  auto c = ParseClusterConfig(yaml, "t.yaml");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return *c;
}

protocol::NodeInfo Raylet(const std::string& ip, double cpus, double free,
                          const std::string& session = "") {
  protocol::NodeInfo n;
  n.address = ip;
  n.session_dir = session.empty() ? "/s/" + ip : session;
  n.total = {{"CPU", cpus}};
  n.available = {{"CPU", free}};
  n.state = "ALIVE";
  return n;
}

class AutoscalerTest : public ::testing::Test {
 protected:
  ClusterView View(std::vector<protocol::NodeInfo> workers = {}) {
    ClusterView v{{Raylet("10.9.9.9", 1, 1, "/head")}, "/head"};
    for (auto& w : workers) v.alive.push_back(std::move(w));
    return v;
  }
  // Marks every setup started so far as done, the node's tags as a NodeUpdater leaves them.
  void FinishSetups(bool ok = true) {
    for (const auto& [id, u] : setups_.started) {
      if (!setups_.busy.count(id)) continue;
      setups_.finished[id] = ok ? Status::Ok() : Status::Internal("exit 1");
      provider_.nodes[id].tags[kTagNodeStatus] = ok ? kStatusUpToDate : kStatusUpdateFailed;
      if (ok) provider_.nodes[id].tags[kTagRuntimeConfig] = u.runtime_hash;
    }
  }

  FakeProvider provider_;
  FakeSetups setups_;
  Autoscaler scaler_{provider_, setups_, {"", "/token"}};
};

TEST_F(AutoscalerTest, LaunchesComeInBatchesOfFiveAndEachNewNodeIsSetUpOnce) {
  ClusterConfig c = Config(8, 8);
  ASSERT_TRUE(scaler_.Update(c, View(), 0, 1).ok());
  EXPECT_EQ(provider_.creates, (std::vector<int>{5, 3}));
  ASSERT_TRUE(scaler_.Update(c, View(), 1, 1).ok());
  EXPECT_EQ(setups_.started.size(), 8u);
  ASSERT_TRUE(scaler_.Update(c, View(), 2, 1).ok());
  EXPECT_EQ(setups_.started.size(), 8u) << "a node was set up twice";
  EXPECT_EQ(provider_.creates.size(), 2u) << "nodes being set up were launched again";
  EXPECT_EQ(setups_.started.front().second.restart_only, false);
}

TEST_F(AutoscalerTest, AProviderErrorEndsTheRoundAndTheNextOneGoesOn) {
  ClusterConfig c = Config(1, 2);
  provider_.fail_list = true;
  Status st = scaler_.Update(c, View(), 0, 1);
  EXPECT_EQ(st.code(), StatusCode::kUnavailable);
  EXPECT_NE(st.message().find("the cloud is down"), std::string::npos);
  provider_.fail_list = false;
  EXPECT_TRUE(scaler_.Update(c, View(), 1, 1).ok());
  EXPECT_EQ(provider_.nodes.size(), 1u);
}

TEST_F(AutoscalerTest, AFailedLaunchIsAnErrorAndCounted) {
  ClusterConfig c = Config(2, 2);
  provider_.fail_create = true;
  Status st = scaler_.Update(c, View(), 0, 1);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("quota exceeded"), std::string::npos) << st.message();
  EXPECT_EQ(scaler_.View()["launch_failures"], 1);
}

TEST_F(AutoscalerTest, ANodeBeingSetUpIsNotTerminatedUntilItsSetupEnds) {
  ASSERT_TRUE(scaler_.Update(Config(2, 2), View(), 0, 1).ok());
  ASSERT_TRUE(scaler_.Update(Config(2, 2), View(), 1, 1).ok());  // setups start
  ASSERT_EQ(setups_.busy.size(), 2u);
  ASSERT_TRUE(scaler_.Update(Config(0, 1), View(), 2, 1).ok());  // max lowered
  EXPECT_TRUE(provider_.terminated.empty()) << "terminated mid-setup";
  FinishSetups();
  ASSERT_TRUE(scaler_.Update(Config(0, 1), View(), 3, 1).ok());
  EXPECT_EQ(provider_.terminated.size(), 1u);
  EXPECT_EQ(setups_.stopped, provider_.terminated) << "ray not stopped before release";
}

TEST_F(AutoscalerTest, AFailedSetupPausesLaunchesThenTheyResume) {
  ClusterConfig c = Config(1, 1);
  ASSERT_TRUE(scaler_.Update(c, View(), 0, 1).ok());
  ASSERT_TRUE(scaler_.Update(c, View(), 1, 1).ok());
  FinishSetups(/*ok=*/false);
  ASSERT_TRUE(scaler_.Update(c, View(), 2, 1).ok());  // reaped; the node goes
  EXPECT_EQ(provider_.terminated.size(), 1u);
  ASSERT_TRUE(scaler_.Update(c, View(), 2.5, 1).ok());
  EXPECT_EQ(provider_.creates.size(), 1u) << "relaunched at once";
  ASSERT_TRUE(scaler_.Update(c, View(), 10, 1).ok());
  EXPECT_EQ(provider_.creates.size(), 2u) << "never relaunched";
}

TEST_F(AutoscalerTest, AnIdleNodeGoesAfterTheTimeoutWithRayStoppedFirst) {
  ClusterConfig c = Config(0, 2, /*idle_minutes=*/1);
  ASSERT_TRUE(provider_.CreateNodes(*c.FindType("cpu"), NewNodeTags(c, *c.FindType("cpu"), false), 1).ok());
  std::string id = provider_.nodes.begin()->first;
  UpdateOptions u = WorkerUpdate(c, *c.FindType("cpu"), "", "/token");
  provider_.nodes[id].tags[kTagNodeStatus] = kStatusUpToDate;
  provider_.nodes[id].tags[kTagRuntimeConfig] = u.runtime_hash;
  auto idle = [&] { return View({Raylet(id, 2, 2)}); };
  ASSERT_TRUE(scaler_.Update(c, View({Raylet(id, 2, 0)}), 0, 1).ok());  // busy at 0
  ASSERT_TRUE(scaler_.Update(c, idle(), 30, 1).ok());
  EXPECT_TRUE(provider_.terminated.empty()) << "removed before its idle timeout";
  ASSERT_TRUE(scaler_.Update(c, idle(), 61, 1).ok());
  EXPECT_EQ(provider_.terminated, (std::vector<std::string>{id}));
  EXPECT_EQ(setups_.stopped, (std::vector<std::string>{id}));
  EXPECT_TRUE(setups_.started.empty()) << "a current node was set up again";
}

TEST_F(AutoscalerTest, ANodeLeftMidSetupIsSetUpAgainFromTheStart) {
  ClusterConfig c = Config(1, 1);
  ASSERT_TRUE(provider_.CreateNodes(*c.FindType("cpu"), NewNodeTags(c, *c.FindType("cpu"), false), 1).ok());
  provider_.nodes.begin()->second.tags[kTagNodeStatus] = kStatusSettingUp;
  ASSERT_TRUE(scaler_.Update(c, View(), 0, 1).ok());
  ASSERT_EQ(setups_.started.size(), 1u);
  EXPECT_FALSE(setups_.started[0].second.restart_only);
}

TEST_F(AutoscalerTest, ANodeWhoseRayletIsMissingGetsRayRestartedOnly) {
  ClusterConfig c = Config(1, 1);
  ASSERT_TRUE(provider_.CreateNodes(*c.FindType("cpu"), NewNodeTags(c, *c.FindType("cpu"), false), 1).ok());
  std::string id = provider_.nodes.begin()->first;
  provider_.nodes[id].tags[kTagNodeStatus] = kStatusUpToDate;
  provider_.nodes[id].tags[kTagRuntimeConfig] = WorkerUpdate(c, *c.FindType("cpu"), "", "/token").runtime_hash;
  ASSERT_TRUE(scaler_.Update(c, View({Raylet(id, 2, 2)}), 0, 1).ok());
  ASSERT_TRUE(scaler_.Update(c, View(), 1, 1).ok());  // raylet gone
  EXPECT_TRUE(setups_.started.empty()) << "restarted before 30 s";
  ASSERT_TRUE(scaler_.Update(c, View(), 32, 1).ok());
  ASSERT_EQ(setups_.started.size(), 1u);
  EXPECT_TRUE(setups_.started[0].second.restart_only);
}

TEST_F(AutoscalerTest, WaitingWorkLaunchesAndTheViewSaysSo) {
  ClusterConfig c = Config(0, 3);
  ClusterView v = View();
  v.alive[0].load = {{{{"CPU", 1}}, 3, false}, {{{"CPU", 64}}, 1, true}};
  ASSERT_TRUE(scaler_.Update(c, v, 0, 1).ok());
  EXPECT_EQ(provider_.nodes.size(), 1u);  // 3 one-CPU tasks: 1 on the head's free CPU, 2 on a node
  EXPECT_EQ(scaler_.View()["demand"], 4);
  EXPECT_EQ(scaler_.View()["infeasible"].size(), 1u);
}

}  // namespace
}  // namespace ray::cluster
