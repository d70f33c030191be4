// The GCS's placement group table over a real SQLite file: creation checks, the
// reservation handshake with raylets (driven by Sync calls), node deaths, job ends,
// and a table loaded again from the store.

#include "runtime/gcs/placement_groups.h"

#include <gtest/gtest.h>

#include <set>

#include "runtime/serialization/protocol.h"
#include "tests/test_util/temp_dir.h"

namespace ray::gcs {
namespace {

using scheduler::BundleNode;
using scheduler::ResourceSet;
using Bundles = std::vector<std::map<std::string, double>>;

const std::string kJob = std::string("\x01\x02\x03\x04", 4);

BundleNode Node(const std::string& id, double cpus) {
  auto r = ResourceSet::FromDoubles({{"CPU", cpus}});
  return {id, r, r};
}

std::string CreateBody(const std::string& name, const std::string& strategy, Bundles bundles,
                       const std::string& job = kJob) {
  return ray::internal::Pack(std::make_tuple(name, strategy, bundles, job));
}

class PlacementGroupsTest : public ::testing::Test {
 protected:
  void SetUp() override { Reopen(); }
  void Reopen() {
    groups_.reset();
    store_.reset();
    auto store = GcsStore::Open(dir_.path() + "/gcs.sqlite3");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    auto groups = PlacementGroups::Load(store_.get());
    ASSERT_TRUE(groups.ok()) << groups.status().ToString();
    groups_ = std::move(groups).value();
  }
  // A raylet's sync holding `held` of what it was given.
  BundleSyncReply Sync(const std::string& node, std::vector<std::pair<std::string, int32_t>> held,
                       std::vector<std::pair<std::string, int32_t>> refused = {}) {
    BundleSync s;
    s.node_id = node;
    s.held = std::move(held);
    s.refused = std::move(refused);
    return groups_->Sync(s);
  }
  // Holds whatever the node is given, as a raylet with room would.
  void HoldAll(const std::string& node) {
    auto wanted = Sync(node, held_[node]).wanted;
    held_[node].clear();
    for (const auto& b : wanted) held_[node].push_back({b.pg_id, b.index});
    Sync(node, held_[node]);
  }
  std::map<std::string, std::vector<std::pair<std::string, int32_t>>> held_;  // by node
  PlacementGroupRecord Get(const std::string& id) {
    auto pg = groups_->Get(id, "");
    EXPECT_TRUE(pg.ok());
    return pg.ok() ? *pg : PlacementGroupRecord{};
  }

  test_util::TempDir dir_;
  std::unique_ptr<GcsStore> store_;
  std::unique_ptr<PlacementGroups> groups_;
  std::vector<BundleNode> nodes_ = {Node("a", 2), Node("b", 2)};
};

TEST_F(PlacementGroupsTest, CreatedOnceEveryNodeHoldsItsBundles) {
  auto pg = groups_->Create(CreateBody("g", "STRICT_SPREAD", {{{"CPU", 1}}, {{"CPU", 1}}}),
                            nodes_, false);
  ASSERT_TRUE(pg.ok()) << pg.status().ToString();
  EXPECT_EQ(pg->pg_id.size(), 36u);
  EXPECT_EQ(pg->state, kPgPending);
  // Placed at once, a bundle on each node.
  EXPECT_EQ(std::set<std::string>(pg->bundle_nodes.begin(), pg->bundle_nodes.end()),
            (std::set<std::string>{"a", "b"}));
  HoldAll("a");
  EXPECT_EQ(Get(pg->pg_id).state, kPgPending);  // b has not said yet
  uint64_t before = Sync("a", held_["a"]).groups_version;
  HoldAll("b");
  EXPECT_EQ(Get(pg->pg_id).state, kPgCreated);
  EXPECT_NE(Sync("a", held_["a"]).groups_version, before);
  EXPECT_EQ(groups_->Get("", "g")->pg_id, pg->pg_id);
}

TEST_F(PlacementGroupsTest, RefusalsAndNoRoomKeepItPending) {
  std::vector<BundleNode> busy = {Node("a", 2)};
  busy[0].available = ResourceSet();
  auto pg = groups_->Create(CreateBody("", "PACK", {{{"CPU", 2}}}), busy, false);
  ASSERT_TRUE(pg.ok());
  EXPECT_EQ(pg->bundle_nodes[0], "");  // no room now: waits
  groups_->Schedule({Node("a", 2)});
  EXPECT_EQ(Get(pg->pg_id).bundle_nodes[0], "a");
  // The node had less than the GCS thought: it refuses, the bundle is unplaced.
  Sync("a", {}, {{pg->pg_id, 0}});
  EXPECT_EQ(Get(pg->pg_id).bundle_nodes[0], "");
  EXPECT_EQ(Get(pg->pg_id).state, kPgPending);
}

TEST_F(PlacementGroupsTest, ANodesDeathReschedulesItsBundles) {
  std::vector<BundleNode> three = {Node("a", 2), Node("b", 2), Node("c", 2)};
  auto pg = groups_->Create(CreateBody("", "STRICT_SPREAD", {{{"CPU", 1}}, {{"CPU", 1}}}), three,
                            false);
  ASSERT_TRUE(pg.ok());
  HoldAll("a");
  HoldAll("b");
  ASSERT_EQ(Get(pg->pg_id).state, kPgCreated);
  auto before = Get(pg->pg_id).bundle_nodes;
  groups_->OnNodeDead("b");
  EXPECT_EQ(Get(pg->pg_id).state, kPgRescheduling);
  groups_->Schedule({three[0], three[2]});
  // The bundle that was on b moved to c; the one on a stayed.
  auto after = Get(pg->pg_id).bundle_nodes;
  for (size_t i = 0; i < 2; ++i) EXPECT_EQ(after[i], before[i] == "b" ? "c" : "a");
  HoldAll("c");
  EXPECT_EQ(Get(pg->pg_id).state, kPgCreated);
}

TEST_F(PlacementGroupsTest, RemovedGroupsLeaveTheirNodesAndTheirName) {
  auto pg = groups_->Create(CreateBody("g", "PACK", {{{"CPU", 1}}}), nodes_, false);
  ASSERT_TRUE(pg.ok());
  HoldAll("a");
  ASSERT_TRUE(groups_->Remove(pg->pg_id, "removed by the user").ok());
  EXPECT_TRUE(Sync("a", {{pg->pg_id, 0}}).wanted.empty());  // a releases it
  EXPECT_EQ(Get(pg->pg_id).state, kPgRemoved);
  EXPECT_EQ(groups_->Get("", "g").status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(groups_->Create(CreateBody("g", "PACK", {{{"CPU", 1}}}), nodes_, false).ok());
  EXPECT_EQ(groups_->Remove("nope", "x").code(), StatusCode::kNotFound);
}

TEST_F(PlacementGroupsTest, AJobsGroupsGoWithIt) {
  auto mine = groups_->Create(CreateBody("", "PACK", {{{"CPU", 1}}}), nodes_, false);
  auto other = groups_->Create(CreateBody("", "PACK", {{{"CPU", 1}}}, std::string(4, '\x09')),
                               nodes_, false);
  ASSERT_TRUE(mine.ok() && other.ok());
  groups_->OnJobFinished(kJob);
  EXPECT_EQ(Get(mine->pg_id).state, kPgRemoved);
  EXPECT_NE(Get(mine->pg_id).detail.find("job"), std::string::npos);
  EXPECT_EQ(Get(other->pg_id).state, kPgPending);
}

TEST_F(PlacementGroupsTest, ARestartedGcsKeepsItsGroups) {
  auto pg = groups_->Create(CreateBody("kept", "SPREAD", {{{"CPU", 1}}, {{"CPU", 1}}}), nodes_,
                            false);
  ASSERT_TRUE(pg.ok());
  HoldAll("a");
  HoldAll("b");
  ASSERT_EQ(Get(pg->pg_id).state, kPgCreated);
  Reopen();
  PlacementGroupRecord again = Get(pg->pg_id);
  EXPECT_EQ(again.state, kPgCreated);
  EXPECT_EQ(again.name, "kept");
  EXPECT_EQ(again.bundle_nodes, pg->bundle_nodes);  // the raylets still hold them
  EXPECT_EQ(Sync("a", {}).wanted.size(), 1u);
}

TEST_F(PlacementGroupsTest, BadRequestsAreRefusedNamingTheProblem) {
  auto refused = [&](const std::string& body, bool may_grow = false) {
    auto r = groups_->Create(body, nodes_, may_grow);
    EXPECT_FALSE(r.ok());
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_NE(refused(CreateBody("", "pack", {{{"CPU", 1}}})).find("unknown placement strategy"),
            std::string::npos);
  EXPECT_NE(refused(CreateBody("", "PACK", {})).find("at least one bundle"), std::string::npos);
  EXPECT_NE(refused(CreateBody("", "PACK", {{{"CPU_group_x", 1}}})).find("reserved"),
            std::string::npos);
  EXPECT_NE(refused(CreateBody("", "PACK", {{{"CPU", 8}}})).find("larger than any node"),
            std::string::npos);
  EXPECT_NE(refused("garbage").find("create_placement_group body"), std::string::npos);
  // With an autoscaler the cluster may grow: it waits instead.
  EXPECT_TRUE(groups_->Create(CreateBody("", "PACK", {{{"CPU", 8}}}), nodes_, true).ok());
  ASSERT_TRUE(groups_->Create(CreateBody("dup", "PACK", {{{"CPU", 1}}}), nodes_, false).ok());
  EXPECT_NE(refused(CreateBody("dup", "PACK", {{{"CPU", 1}}})).find("is taken"), std::string::npos);
}

}  // namespace
}  // namespace ray::gcs
