#include "runtime/scheduler/bundle_placement.h"

#include <gtest/gtest.h>

#include <set>

#include "runtime/scheduler/bundle_resources.h"

namespace ray::scheduler {
namespace {

using Amounts = std::map<std::string, double>;
using Nodes = std::vector<std::string>;

ResourceSet Shape(Amounts a) { return ResourceSet::FromDoubles(a); }

BundleNode Node(std::string id, double cpus) {
  return {std::move(id), Shape({{"CPU", cpus}}), Shape({{"CPU", cpus}})};
}

std::vector<ResourceSet> Cpus(std::vector<double> each) {
  std::vector<ResourceSet> out;
  for (double c : each) out.push_back(Shape({{"CPU", c}}));
  return out;
}

const std::vector<BundleNode> kThree = {Node("a", 2), Node("b", 2), Node("c", 2)};

TEST(BundlePlacementTest, StrategyNamesAreRays) {
  for (const char* name : {"PACK", "SPREAD", "STRICT_PACK", "STRICT_SPREAD"}) {
    auto s = ParsePlacementStrategy(name);
    ASSERT_TRUE(s) << name;
    EXPECT_STREQ(PlacementStrategyName(*s), name);
  }
  EXPECT_FALSE(ParsePlacementStrategy("pack"));
  EXPECT_FALSE(ParsePlacementStrategy(""));
}

TEST(BundlePlacementTest, PackPutsEverythingOnOneNodeWhenItFits) {
  auto p = PlaceBundles(Cpus({1, 1}), PlacementStrategy::kPack, {}, kThree);
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, (Nodes{"a", "a"}));
}

TEST(BundlePlacementTest, PackFillsUsedNodesBeforeNewOnes) {
  // 3 bundles of 1 CPU on 2-CPU nodes: two on one node, the third on the next.
  auto p = PlaceBundles(Cpus({1, 1, 1}), PlacementStrategy::kPack, {}, kThree);
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, (Nodes{"a", "a", "b"}));
}

TEST(BundlePlacementTest, SpreadUsesDistinctNodesThenTheLeastUsed) {
  auto p = PlaceBundles(Cpus({1, 1, 1}), PlacementStrategy::kSpread, {}, kThree);
  ASSERT_TRUE(p);
  EXPECT_EQ(std::set<std::string>(p->begin(), p->end()), (std::set<std::string>{"a", "b", "c"}));
  auto more = PlaceBundles(Cpus({1, 1, 1, 1}), PlacementStrategy::kSpread, {}, kThree);
  ASSERT_TRUE(more);
  std::map<std::string, int> per_node;
  for (const auto& n : *more) ++per_node[n];
  EXPECT_EQ(per_node.size(), 3u);  // best effort: a fourth bundle shares a node
}

TEST(BundlePlacementTest, StrictPackNeedsOneNodeForAll) {
  auto p = PlaceBundles(Cpus({1, 1}), PlacementStrategy::kStrictPack, {}, kThree);
  ASSERT_TRUE(p);
  EXPECT_EQ((*p)[0], (*p)[1]);
  EXPECT_FALSE(PlaceBundles(Cpus({1, 1, 1}), PlacementStrategy::kStrictPack, {}, kThree));
}

TEST(BundlePlacementTest, StrictSpreadNeedsADistinctNodePerBundle) {
  auto p = PlaceBundles(Cpus({1, 1, 1}), PlacementStrategy::kStrictSpread, {}, kThree);
  ASSERT_TRUE(p);
  EXPECT_EQ(std::set<std::string>(p->begin(), p->end()).size(), 3u);
  EXPECT_FALSE(PlaceBundles(Cpus({1, 1, 1, 1}), PlacementStrategy::kStrictSpread, {}, kThree));
}

TEST(BundlePlacementTest, StrictSpreadMatchesBundlesToTheNodesThatFitThem) {
  // A greedy pass would put the small bundle on the big node and strand the big one.
  std::vector<BundleNode> nodes = {Node("big", 4), Node("small", 1)};
  auto p = PlaceBundles(Cpus({1, 4}), PlacementStrategy::kStrictSpread, {}, nodes);
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, (Nodes{"small", "big"}));
}

TEST(BundlePlacementTest, AllOrNothing) {
  // The second bundle fits nowhere: no placement at all.
  EXPECT_FALSE(PlaceBundles(Cpus({1, 3}), PlacementStrategy::kPack, {}, kThree));
  EXPECT_FALSE(PlaceBundles(Cpus({1, 3}), PlacementStrategy::kSpread, {}, kThree));
}

TEST(BundlePlacementTest, UsesWhatIsFreeNotTheTotal) {
  std::vector<BundleNode> nodes = kThree;
  nodes[0].available = Shape({});  // a busy
  auto p = PlaceBundles(Cpus({2}), PlacementStrategy::kPack, {}, nodes);
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, (Nodes{"b"}));
}

TEST(BundlePlacementTest, PlacedBundlesStayAndCountForTheStrategy) {
  // Bundle 1's node died: it goes to a node bundles 0 and 2 do not use.
  auto p = PlaceBundles(Cpus({1, 1, 1}), PlacementStrategy::kStrictSpread, {"a", "", "c"}, kThree);
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, (Nodes{"a", "b", "c"}));
  // STRICT_PACK: only the node the others are on.
  auto packed = PlaceBundles(Cpus({1, 1}), PlacementStrategy::kStrictPack, {"b", ""}, kThree);
  ASSERT_TRUE(packed);
  EXPECT_EQ(*packed, (Nodes{"b", "b"}));
  // PACK: with the others if there is room.
  auto pack = PlaceBundles(Cpus({1, 1}), PlacementStrategy::kPack, {"c", ""}, kThree);
  ASSERT_TRUE(pack);
  EXPECT_EQ(*pack, (Nodes{"c", "c"}));
}

TEST(BundlePlacementTest, CustomResourcesSteerBundles) {
  std::vector<BundleNode> nodes = kThree;
  nodes[2].total = nodes[2].available = Shape({{"CPU", 2}, {"disk", 1}});
  auto p = PlaceBundles({Shape({{"disk", 1}})}, PlacementStrategy::kPack, {}, nodes);
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, (Nodes{"c"}));
}

TEST(BundlePlacementTest, NeverFitsIsTold) {
  EXPECT_TRUE(CheckBundlesFit(Cpus({2, 2, 2}), PlacementStrategy::kStrictSpread, kThree).ok());
  Status big = CheckBundlesFit(Cpus({1, 8}), PlacementStrategy::kPack, kThree);
  EXPECT_EQ(big.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(big.message().find("bundle 1 {\"CPU\": 8}"), std::string::npos) << big.message();
  Status spread = CheckBundlesFit(Cpus({1, 1, 1, 1}), PlacementStrategy::kStrictSpread, kThree);
  EXPECT_NE(spread.message().find("4 distinct nodes"), std::string::npos) << spread.message();
  Status pack = CheckBundlesFit(Cpus({2, 1}), PlacementStrategy::kStrictPack, kThree);
  EXPECT_NE(pack.message().find("STRICT_PACK"), std::string::npos) << pack.message();
  // Busy nodes could still fit it later: only totals count.
  std::vector<BundleNode> busy = kThree;
  for (auto& n : busy) n.available = Shape({});
  EXPECT_TRUE(CheckBundlesFit(Cpus({2}), PlacementStrategy::kPack, busy).ok());
  EXPECT_FALSE(CheckBundlesFit(Cpus({1}), PlacementStrategy::kPack, {}).ok());
}

TEST(BundleResourcesTest, RequestsAndReservationsUseRaysNames) {
  auto req = BundleRequest({{"CPU", 1}, {"GPU", 0}}, "ab12", 0);
  EXPECT_EQ(req, (Amounts{{"CPU_group_0_ab12", 1}, {"bundle_group_0_ab12", 0.001}}));
  auto any = BundleRequest({}, "ab12", -1);
  EXPECT_EQ(any, (Amounts{{"bundle_group_ab12", 0.001}}));
  ResourceSet r = BundleReservation(Shape({{"CPU", 2}}), "ab12", 1);
  EXPECT_EQ(r.ToDoubles(), (Amounts{{"CPU_group_1_ab12", 2},
                                    {"CPU_group_ab12", 2},
                                    {"bundle_group_1_ab12", 1000},
                                    {"bundle_group_ab12", 1000}}));
  EXPECT_TRUE(r.Contains(ResourceSet::FromDoubles(req)) == false);  // bundle 0 is not here
  EXPECT_TRUE(r.Contains(ResourceSet::FromDoubles(any)));
  EXPECT_TRUE(UsesGroup(ResourceSet::FromDoubles(any), "ab12"));
  EXPECT_FALSE(UsesGroup(ResourceSet::FromDoubles(any), "b12"));
  EXPECT_FALSE(UsesGroup(Shape({{"CPU", 1}}), "ab12"));
  EXPECT_EQ(RequestInBundle(req, "ab12", 0), (Amounts{{"CPU", 1}}));
  EXPECT_EQ(RequestInBundle(BundleRequest({{"GPU", 2}}, "ab12", -1), "ab12", -1),
            (Amounts{{"GPU", 2}}));
  EXPECT_TRUE(IsBundleResourceName("CPU_group_ab12"));
  EXPECT_FALSE(IsBundleResourceName("CPU"));
}

}  // namespace
}  // namespace ray::scheduler
