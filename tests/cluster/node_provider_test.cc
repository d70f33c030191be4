#include "runtime/cluster/node_provider.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "runtime/base/util.h"
#include "tests/test_util/temp_dir.h"

namespace ray::cluster {
namespace {

using Ids = std::vector<std::string>;

const Tags kHead = {{kTagNodeKind, kKindHead}, {kTagUserNodeType, "ray.head.default"}};
const Tags kWorker = {{kTagNodeKind, kKindWorker}, {kTagUserNodeType, "ray.worker.default"}};

ClusterConfig MustParse(const std::string& yaml) {
  auto c = ParseClusterConfig(yaml, "test.yaml");
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? *c : ClusterConfig{};
}

// A head host and two worker hosts, for either provider.
ClusterConfig LocalConfig() {
  return MustParse(R"(cluster_name: hosts
provider:
  type: local
  head_ip: 10.0.0.1
  worker_ips: [10.0.0.2, 10.0.0.3]
auth:
  ssh_user: ubuntu
)");
}

ClusterConfig ExternalConfig(const std::string& module, const std::string& extra) {
  return MustParse("cluster_name: hosts\nprovider:\n  type: external\n  module: " + module + "\n" +
                   extra + "auth:\n  ssh_user: ubuntu\n");
}

ClusterConfig StaticHostsConfig(const std::string& state_file) {
  return ExternalConfig(
      STATIC_HOSTS_PROVIDER,
      "  hosts: [10.0.0.1, 10.0.0.2, 10.0.0.3]\n  state_file: " + state_file + "\n");
}

Ids Sorted(Ids ids) {
  std::sort(ids.begin(), ids.end());
  return ids;
}

Ids IdsOf(Result<std::vector<ProviderNode>> nodes) {
  EXPECT_TRUE(nodes.ok()) << nodes.status().ToString();
  Ids ids;
  if (nodes.ok()) {
    for (const auto& n : *nodes) ids.push_back(n.id);
  }
  return Sorted(ids);
}

// ---- the contract, run against every provider that needs no hosts ----

enum class Kind { kLocal, kStaticHosts };
void PrintTo(Kind kind, std::ostream* os) {
  *os << (kind == Kind::kLocal ? "local" : "static_hosts_provider.so");
}

class NodeProviderContractTest : public ::testing::TestWithParam<Kind> {
 protected:
  ClusterConfig Config() const {
    return GetParam() == Kind::kLocal ? LocalConfig()
                                      : StaticHostsConfig(dir_.path() + "/static-hosts.json");
  }
  std::unique_ptr<NodeProvider> Make() const {
    ClusterConfig c = Config();
    auto p = MakeNodeProvider(c, ProviderContext{dir_.path() + "/state", "", ""});
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    return p.ok() ? std::move(p).value() : nullptr;
  }
  test_util::TempDir dir_;
};

TEST_P(NodeProviderContractTest, HeadClaimsTheHeadHost) {
  ClusterConfig c = Config();
  auto p = Make();
  ASSERT_NE(p, nullptr);
  EXPECT_TRUE(p->UsesNodeUpdaters());
  EXPECT_EQ(IdsOf(p->NonTerminatedNodes({})), Ids{});

  auto head = p->CreateNodes(c.HeadType(), kHead, 1);
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  EXPECT_EQ(*head, Ids{"10.0.0.1"});
  auto nodes = p->NonTerminatedNodes({});
  ASSERT_TRUE(nodes.ok());
  ASSERT_EQ(nodes->size(), 1u);
  EXPECT_EQ((*nodes)[0].id, "10.0.0.1");
  EXPECT_EQ((*nodes)[0].ip, "10.0.0.1");
  EXPECT_EQ((*nodes)[0].tags, kHead);
  EXPECT_EQ((*nodes)[0].ray_temp_dir, "");

  // There is one head host: a second head is not made.
  auto again = p->CreateNodes(c.HeadType(), kHead, 1);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, Ids{});
}

TEST_P(NodeProviderContractTest, WorkersClaimFreeWorkerHosts) {
  ClusterConfig c = Config();
  const NodeType& worker = *c.WorkerTypes()[0];
  auto p = Make();
  ASSERT_NE(p, nullptr);
  auto one = p->CreateNodes(worker, kWorker, 1);
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  ASSERT_EQ(one->size(), 1u);  // the count is honoured
  EXPECT_NE((*one)[0], "10.0.0.1");

  auto rest = p->CreateNodes(worker, kWorker, 5);  // one host left: fewer than asked
  ASSERT_TRUE(rest.ok());
  ASSERT_EQ(rest->size(), 1u);
  EXPECT_EQ(Sorted({(*one)[0], (*rest)[0]}), (Ids{"10.0.0.2", "10.0.0.3"}));

  auto none = p->CreateNodes(worker, kWorker, 1);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  EXPECT_EQ(IdsOf(p->NonTerminatedNodes({})), (Ids{"10.0.0.2", "10.0.0.3"}));
}

TEST_P(NodeProviderContractTest, TagsFilterTheNodes) {
  ClusterConfig c = Config();
  auto p = Make();
  ASSERT_NE(p, nullptr);
  ASSERT_TRUE(p->CreateNodes(c.HeadType(), kHead, 1).ok());
  ASSERT_TRUE(p->CreateNodes(*c.WorkerTypes()[0], kWorker, 2).ok());

  EXPECT_EQ(IdsOf(p->NonTerminatedNodes({})), (Ids{"10.0.0.1", "10.0.0.2", "10.0.0.3"}));
  EXPECT_EQ(IdsOf(p->NonTerminatedNodes({{kTagNodeKind, kKindHead}})), Ids{"10.0.0.1"});
  EXPECT_EQ(IdsOf(p->NonTerminatedNodes({{kTagNodeKind, kKindWorker}})),
            (Ids{"10.0.0.2", "10.0.0.3"}));
  EXPECT_EQ(IdsOf(p->NonTerminatedNodes(kWorker)), (Ids{"10.0.0.2", "10.0.0.3"}));
  EXPECT_EQ(IdsOf(p->NonTerminatedNodes(
                {{kTagNodeKind, kKindWorker}, {kTagNodeStatus, kStatusUpToDate}})),
            Ids{});
  EXPECT_EQ(IdsOf(p->NonTerminatedNodes({{"no-such-tag", ""}})), Ids{});
}

TEST_P(NodeProviderContractTest, SetNodeTagsMerges) {
  ClusterConfig c = Config();
  auto p = Make();
  ASSERT_NE(p, nullptr);
  ASSERT_TRUE(p->CreateNodes(*c.WorkerTypes()[0], kWorker, 2).ok());
  ASSERT_TRUE(p->SetNodeTags("10.0.0.2", {{kTagNodeStatus, kStatusSettingUp}}).ok());
  ASSERT_TRUE(
      p->SetNodeTags("10.0.0.2", {{kTagNodeStatus, kStatusUpToDate}, {kTagRuntimeConfig, "abc"}})
          .ok());

  auto nodes = p->NonTerminatedNodes({{kTagNodeStatus, kStatusUpToDate}});
  ASSERT_TRUE(nodes.ok());
  ASSERT_EQ(nodes->size(), 1u);
  Tags expected = kWorker;
  expected[kTagNodeStatus] = kStatusUpToDate;
  expected[kTagRuntimeConfig] = "abc";
  EXPECT_EQ((*nodes)[0].tags, expected);
  EXPECT_FALSE(p->SetNodeTags("10.9.9.9", {{kTagNodeStatus, kStatusUpToDate}}).ok());
}

TEST_P(NodeProviderContractTest, TerminateFreesTheHost) {
  ClusterConfig c = Config();
  const NodeType& worker = *c.WorkerTypes()[0];
  auto p = Make();
  ASSERT_NE(p, nullptr);
  ASSERT_TRUE(p->CreateNodes(worker, kWorker, 2).ok());
  ASSERT_TRUE(p->SetNodeTags("10.0.0.2", {{kTagNodeStatus, kStatusUpToDate}}).ok());

  ASSERT_TRUE(p->TerminateNodes({"10.0.0.2"}).ok());
  EXPECT_EQ(IdsOf(p->NonTerminatedNodes({})), Ids{"10.0.0.3"});
  ASSERT_TRUE(p->TerminateNodes({}).ok());
  ASSERT_TRUE(p->TerminateNodes({"10.0.0.2"}).ok());  // twice: nothing more to do

  auto again = p->CreateNodes(worker, {{kTagNodeKind, kKindWorker}}, 1);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, Ids{"10.0.0.2"});
  auto nodes = p->NonTerminatedNodes({{kTagNodeKind, kKindWorker}});
  ASSERT_TRUE(nodes.ok());
  for (const auto& n : *nodes) {
    if (n.id == "10.0.0.2") {  // a new node: the old one's tags are gone
      EXPECT_EQ(n.tags, (Tags{{kTagNodeKind, kKindWorker}}));
    }
  }
  ASSERT_TRUE(p->TerminateNodes({"10.0.0.2", "10.0.0.3"}).ok());
  EXPECT_EQ(IdsOf(p->NonTerminatedNodes({})), Ids{});
}

TEST_P(NodeProviderContractTest, ProvidersOnOneStateSeeEachOther) {
  ClusterConfig c = Config();
  auto a = Make();
  auto b = Make();
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(a->CreateNodes(*c.WorkerTypes()[0], kWorker, 1).ok());
  auto from_b = b->CreateNodes(*c.WorkerTypes()[0], kWorker, 2);  // one host left
  ASSERT_TRUE(from_b.ok());
  EXPECT_EQ(from_b->size(), 1u);
  ASSERT_TRUE(b->SetNodeTags((*from_b)[0], {{kTagNodeStatus, kStatusUpToDate}}).ok());
  EXPECT_EQ(IdsOf(a->NonTerminatedNodes({{kTagNodeStatus, kStatusUpToDate}})), *from_b);
  ASSERT_TRUE(a->TerminateNodes(*from_b).ok());
  EXPECT_EQ(IdsOf(b->NonTerminatedNodes({})).size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Providers, NodeProviderContractTest,
                         ::testing::Values(Kind::kLocal, Kind::kStaticHosts), [](const auto& info) {
                           return info.param == Kind::kLocal ? "Local" : "StaticHosts";
                         });

// ---- local ----

// The local provider's state file, found after a first call made it.
std::string StateFileIn(const std::string& dir) {
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".json") return e.path().string();
  }
  return "";
}

TEST(LocalProviderTest, CorruptedStateIsDataLossNamingTheFile) {
  test_util::TempDir dir;
  auto p = MakeNodeProvider(LocalConfig(), {dir.path(), "", ""});
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE((*p)->NonTerminatedNodes({}).ok());
  std::string state = StateFileIn(dir.path());
  ASSERT_FALSE(state.empty());

  ASSERT_TRUE(WriteFile(state, "{\"nodes\": {\"10.0.0.2\": {\"state\": ").ok());
  auto nodes = (*p)->NonTerminatedNodes({});
  ASSERT_FALSE(nodes.ok());
  EXPECT_EQ(nodes.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(nodes.status().message().find(state), std::string::npos) << nodes.status().message();
  // Left as it was, for the user to look at.
  EXPECT_EQ(ReadFile(state).value(), "{\"nodes\": {\"10.0.0.2\": {\"state\": ");
  EXPECT_EQ((*p)->CreateNodes(*LocalConfig().WorkerTypes()[0], kWorker, 1).status().code(),
            StatusCode::kDataLoss);
}

TEST(LocalProviderTest, WellFormedJsonOfTheWrongShapeIsDataLoss) {
  test_util::TempDir dir;
  auto p = MakeNodeProvider(LocalConfig(), {dir.path(), "", ""});
  ASSERT_TRUE(p.ok());
  ASSERT_TRUE((*p)->NonTerminatedNodes({}).ok());
  std::string state = StateFileIn(dir.path());
  ASSERT_FALSE(state.empty());
  ASSERT_TRUE(WriteFile(state, R"({"nodes": {"10.0.0.2": 7}})").ok());
  auto nodes = (*p)->NonTerminatedNodes({});
  ASSERT_FALSE(nodes.ok());
  EXPECT_EQ(nodes.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(nodes.status().message().find(state), std::string::npos) << nodes.status().message();
}

TEST(LocalProviderTest, ClustersDoNotShareState) {
  test_util::TempDir dir;
  ClusterConfig other = LocalConfig();
  ASSERT_TRUE(ApplyOverrides(other, "other", std::nullopt, std::nullopt).ok());
  auto a = MakeNodeProvider(LocalConfig(), {dir.path(), "", ""});
  auto b = MakeNodeProvider(other, {dir.path(), "", ""});
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE((*a)->CreateNodes(LocalConfig().HeadType(), kHead, 1).ok());
  EXPECT_EQ(IdsOf((*b)->NonTerminatedNodes({})), Ids{});
}

TEST(TagsMatchTest, EveryFilterEntryMustMatch) {
  Tags node = {{"a", "1"}, {"b", "2"}};
  EXPECT_TRUE(TagsMatch(node, {}));
  EXPECT_TRUE(TagsMatch(node, {{"a", "1"}}));
  EXPECT_TRUE(TagsMatch(node, node));
  EXPECT_FALSE(TagsMatch(node, {{"a", "2"}}));
  EXPECT_FALSE(TagsMatch(node, {{"a", "1"}, {"c", "3"}}));
  EXPECT_FALSE(TagsMatch({}, {{"a", ""}}));
}

// ---- external: loading the plugin ----

::testing::AssertionResult RefusedNaming(const ClusterConfig& c, const std::string& module,
                                         const std::string& reason) {
  auto p = MakeNodeProvider(c, {});
  if (p.ok()) return ::testing::AssertionFailure() << "loaded";
  const std::string& m = p.status().message();
  if (p.status().code() != StatusCode::kInvalidArgument) {
    return ::testing::AssertionFailure() << "not InvalidArgument: " << p.status().ToString();
  }
  if (m.find(module) == std::string::npos) {
    return ::testing::AssertionFailure() << "does not name the module: " << m;
  }
  if (m.find(reason) == std::string::npos) {
    return ::testing::AssertionFailure() << "does not say '" << reason << "': " << m;
  }
  return ::testing::AssertionSuccess() << m;
}

TEST(ExternalProviderTest, NotASharedLibrary) {
  test_util::TempDir dir;
  std::string module = dir.path() + "/provider.so";
  ASSERT_TRUE(WriteFile(module, "#!/bin/sh\necho I am a script\n").ok());
  EXPECT_TRUE(RefusedNaming(ExternalConfig(module, ""), module, "cannot be loaded"));
  EXPECT_TRUE(RefusedNaming(ExternalConfig(dir.path() + "/missing.so", ""),
                            dir.path() + "/missing.so", "cannot be loaded"));
}

TEST(ExternalProviderTest, ALibraryWithoutTheEntryPoint) {
  EXPECT_TRUE(
      RefusedNaming(ExternalConfig(NOT_A_PROVIDER, ""), NOT_A_PROVIDER, "ray_node_provider_api"));
}

TEST(ExternalProviderTest, APluginThatRefusesItsConfig) {
  // The module's path holds "hosts" too: look for the plugin's own words.
  EXPECT_TRUE(RefusedNaming(ExternalConfig(STATIC_HOSTS_PROVIDER, ""), STATIC_HOSTS_PROVIDER,
                            "needs `hosts`"));
  EXPECT_TRUE(RefusedNaming(ExternalConfig(STATIC_HOSTS_PROVIDER, "  hosts: []\n"),
                            STATIC_HOSTS_PROVIDER, "needs `hosts`"));
  EXPECT_TRUE(RefusedNaming(ExternalConfig(STATIC_HOSTS_PROVIDER, "  hosts: 10.0.0.1\n"),
                            STATIC_HOSTS_PROVIDER, "needs `hosts`"));
}

TEST(ExternalProviderTest, PluginErrorsComeBackAsStatus) {
  test_util::TempDir dir;
  auto p = MakeNodeProvider(StaticHostsConfig(dir.path() + "/s.json"), {});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  Status st = (*p)->SetNodeTags("10.9.9.9", {{kTagNodeStatus, kStatusUpToDate}});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("10.9.9.9"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find(STATIC_HOSTS_PROVIDER), std::string::npos) << st.message();

  ASSERT_TRUE(WriteFile(dir.path() + "/s.json", "not json").ok());
  auto nodes = (*p)->NonTerminatedNodes({});
  ASSERT_FALSE(nodes.ok());
  EXPECT_NE(nodes.status().message().find(dir.path() + "/s.json"), std::string::npos)
      << nodes.status().message();
}

TEST(ExternalProviderTest, StaticHostsKeepsStateUnderHomeByDefault) {
  test_util::TempDir dir;
  const char* old_home = std::getenv("HOME");
  std::string saved = old_home ? old_home : "";
  ::setenv("HOME", dir.path().c_str(), 1);
  auto p = MakeNodeProvider(ExternalConfig(STATIC_HOSTS_PROVIDER, "  hosts: [10.0.0.1]\n"), {});
  if (old_home) {
    ::setenv("HOME", saved.c_str(), 1);
  } else {
    ::unsetenv("HOME");
  }
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_TRUE((*p)->CreateNodes(LocalConfig().HeadType(), kHead, 1).ok());
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/.ray/clusters/hosts-static-hosts.json"));
}

}  // namespace
}  // namespace ray::cluster
