#include "runtime/scheduler/placement.h"

#include <gtest/gtest.h>

namespace ray::scheduler {
namespace {

using Amounts = std::map<std::string, double>;

ResourceSet Shape(Amounts a) { return ResourceSet::FromDoubles(a); }

const ResourceSet kOneCpu = Shape({{"CPU", 1}});

TEST(PlacementTest, HereWhenItFitsNowAndNothingOfItsShapeWaits) {
  Placement p(Shape({{"CPU", 4}}));
  p.UpdateNode("b", true, true, Shape({{"CPU", 4}}), Shape({{"CPU", 4}}), 0);
  EXPECT_EQ(p.ChooseNode(kOneCpu, Shape({{"CPU", 1}}), false), "");
  // Its shape waits here: it would wait behind it, so it spills to a node with room.
  EXPECT_EQ(p.ChooseNode(kOneCpu, Shape({{"CPU", 1}}), true), "b");
  EXPECT_EQ(p.ChooseNode(kOneCpu, Shape({}), false), "b");
}

TEST(PlacementTest, WaitsHereIfNoNodeHasRoomButThisOneCould) {
  Placement p(Shape({{"CPU", 4}}));
  p.UpdateNode("b", true, true, Shape({{"CPU", 4}}), Shape({}), 0);
  EXPECT_EQ(p.ChooseNode(kOneCpu, Shape({}), false), "");
}

// A task in a placement group whose shape already waits here (its group's first
// zero-CPU actor still starting) waits here too once the node's total holds the
// bundle; without the bundle in the total it would wait for its group as if no node
// held it (and be looked at again only on the next retry).
TEST(PlacementTest, WaitsHereForABundleThisNodeReserved) {
  Placement p(Shape({{"CPU", 2}}));
  const ResourceSet marker = Shape({{"bundle_group_ab", 0.001}});
  EXPECT_EQ(p.ChooseNode(marker, marker, /*shape_waiting=*/true), std::nullopt);
  p.SetLocalTotal(Shape({{"CPU", 1}, {"CPU_group_ab", 1}, {"bundle_group_ab", 1000}}));
  EXPECT_EQ(p.ChooseNode(marker, marker, /*shape_waiting=*/true), "");
  EXPECT_TRUE(p.FitsHere(marker));
  p.SetLocalTotal(Shape({{"CPU", 2}}));  // released
  EXPECT_FALSE(p.FitsHere(marker));
}

TEST(PlacementTest, WaitsOnANodeThatCouldIfThisOneNever) {
  Placement p(Shape({{"CPU", 4}}));
  p.UpdateNode("b", true, true, Shape({{"CPU", 4}}), Shape({}), 0);
  p.UpdateNode("c", true, true, Shape({{"GPU", 2}}), Shape({}), 0);
  EXPECT_EQ(p.ChooseNode(Shape({{"GPU", 1}}), Shape({{"CPU", 4}}), false), "c");
  EXPECT_EQ(p.ChooseNode(Shape({{"TPU", 1}}), Shape({{"CPU", 4}}), false), std::nullopt);
}

TEST(PlacementTest, FindsTheOneNodeWithAPrefixAliveOrDead) {
  Placement p(Shape({{"CPU", 1}}));
  p.UpdateNode("abcd1111", true, true, Shape({}), Shape({}), 0);
  p.UpdateNode("abce2222", false, true, Shape({}), Shape({}), 0);
  p.UpdateNode("abce3333", true, true, Shape({}), Shape({}), 0);
  EXPECT_EQ(p.NodeWithPrefix("abcd"), "abcd1111");
  EXPECT_EQ(p.NodeWithPrefix("abce2"), "abce2222");  // dead nodes too
  EXPECT_EQ(p.NodeWithPrefix("abce"), std::nullopt);  // two: ambiguous
  EXPECT_EQ(p.NodeWithPrefix("zz"), std::nullopt);
  EXPECT_EQ(p.NodeWithPrefix("abc0"), std::nullopt);
}

TEST(PlacementTest, DeadAndUnreachableNodesGetNothing) {
  Placement p(Shape({{"CPU", 1}}));
  p.UpdateNode("dead", false, true, Shape({{"GPU", 1}}), Shape({{"GPU", 1}}), 0);
  p.UpdateNode("noaddr", true, false, Shape({{"GPU", 1}}), Shape({{"GPU", 1}}), 0);
  EXPECT_EQ(p.RemoteWithRoom(Shape({{"GPU", 1}})), std::nullopt);
  EXPECT_EQ(p.ChooseNode(Shape({{"GPU", 1}}), Shape({}), false), std::nullopt);
  // An unreachable live node still counts as a node of the cluster.
  EXPECT_TRUE(p.MultiNode());
  EXPECT_EQ(p.ClusterTotal(), Shape({{"CPU", 1}, {"GPU", 1}}));
}

TEST(PlacementTest, FirstNodeByIdWithRoom) {
  Placement p(Shape({{"CPU", 1}}));
  p.UpdateNode("c", true, true, Shape({{"CPU", 8}}), Shape({{"CPU", 8}}), 0);
  p.UpdateNode("b", true, true, Shape({{"CPU", 8}}), Shape({{"CPU", 1}}), 0);
  EXPECT_EQ(p.RemoteWithRoom(kOneCpu), "b");
  EXPECT_EQ(p.RemoteWithRoom(Shape({{"CPU", 2}})), "c");
  // Nodes the caller passes over (a spillback skips those that left an ask unanswered).
  auto skip_b = [](const std::string& node) { return node == "b"; };
  EXPECT_EQ(p.RemoteWithRoom(kOneCpu, skip_b), "c");
  EXPECT_EQ(p.RemoteWithRoom(kOneCpu, [](const std::string&) { return true; }), std::nullopt);
}

TEST(PlacementTest, ChargeCountsSentTasksUntilTheNextUpdate) {
  Placement p(Shape({{"CPU", 1}}));
  p.UpdateNode("b", true, true, Shape({{"CPU", 2}}), Shape({{"CPU", 2}}), 0);
  p.Charge("b", kOneCpu, 0, "t1");
  EXPECT_EQ(p.RemoteWithRoom(kOneCpu), "b");
  p.Charge("b", kOneCpu, 0, "t2");
  EXPECT_EQ(p.RemoteWithRoom(kOneCpu), std::nullopt);
  p.Charge("b", kOneCpu, 0, "t3");  // below zero: still no room
  EXPECT_EQ(p.RemoteWithRoom(kOneCpu), std::nullopt);
  p.Charge("unknown", kOneCpu, 0, "t4");  // ignored
  EXPECT_FALSE(p.Known("unknown"));
  // A report made kChargeLagMs after the charges shows them: it is taken as it is.
  p.UpdateNode("b", true, true, Shape({{"CPU", 2}}), Shape({{"CPU", 1}}), Placement::kChargeLagMs);
  EXPECT_EQ(p.RemoteWithRoom(kOneCpu), "b");
}

// A report that comes soon after tasks were sent may not show them yet: they still
// count, so that a burst does not send the node more than it has room for.
TEST(PlacementTest, AReportSoonAfterAChargeStillCountsIt) {
  Placement p(Shape({{"CPU", 1}}));
  p.UpdateNode("b", true, true, Shape({{"CPU", 2}}), Shape({{"CPU", 2}}), 0);
  p.Charge("b", kOneCpu, 100, "t1");
  p.Charge("b", kOneCpu, 600, "t2");
  p.UpdateNode("b", true, true, Shape({{"CPU", 2}}), Shape({{"CPU", 2}}), 700);
  EXPECT_EQ(p.RemoteWithRoom(kOneCpu), std::nullopt) << "both still counted";
  p.UpdateNode("b", true, true, Shape({{"CPU", 2}}), Shape({{"CPU", 1}}), 100 + Placement::kChargeLagMs);
  EXPECT_EQ(p.RemoteWithRoom(kOneCpu), std::nullopt) << "the report shows the first; the second counts";
  p.Refund("b", "t2");  // the second ended: its charge goes with it
  p.UpdateNode("b", true, true, Shape({{"CPU", 2}}), Shape({{"CPU", 1}}), 1200);
  EXPECT_EQ(p.RemoteWithRoom(kOneCpu), "b");
}

// A task sent there ended while its charge still counted: its resources are free
// there again at once (up to the node's total). Once a report counts it, the next
// report says.
TEST(PlacementTest, RefundFreesWhatAnEndedTaskHeldWhileItsChargeCounts) {
  Placement p(Shape({{"CPU", 1}}));
  p.UpdateNode("b", true, true, Shape({{"CPU", 2}}), Shape({{"CPU", 2}}), 0);
  p.Charge("b", kOneCpu, 10, "t1");
  p.Charge("b", kOneCpu, 20, "t2");
  EXPECT_EQ(p.RemoteWithRoom(kOneCpu), std::nullopt);
  p.Refund("b", "t1");
  EXPECT_EQ(p.RemoteWithRoom(kOneCpu), "b");
  p.Refund("b", "t1");  // told twice: once counted
  EXPECT_EQ(p.RemoteWithRoom(Shape({{"CPU", 2}})), std::nullopt);
  // t2's charge is past the lag at this report, which shows it running: refunding t2
  // then changes nothing (the report may show it ended already).
  p.UpdateNode("b", true, true, Shape({{"CPU", 2}}), Shape({{"CPU", 1}}), 20 + Placement::kChargeLagMs);
  p.Refund("b", "t2");
  EXPECT_EQ(p.RemoteWithRoom(Shape({{"CPU", 2}})), std::nullopt);
  EXPECT_EQ(p.RemoteWithRoom(kOneCpu), "b");
  p.Refund("unknown", "t3");  // ignored
  EXPECT_FALSE(p.Known("unknown"));
}

TEST(PlacementTest, UpdateSaysWhetherTheNodeWasAlive) {
  Placement p(Shape({{"CPU", 1}}));
  EXPECT_FALSE(p.MultiNode());
  EXPECT_FALSE(p.UpdateNode("b", true, true, kOneCpu, kOneCpu, 0));
  EXPECT_TRUE(p.MultiNode());
  EXPECT_TRUE(p.UpdateNode("b", false, true, kOneCpu, kOneCpu, 0));
  EXPECT_FALSE(p.UpdateNode("b", false, true, kOneCpu, kOneCpu, 0));
  EXPECT_FALSE(p.MultiNode());
  EXPECT_TRUE(p.Known("b"));
  EXPECT_TRUE(p.FitsHere(kOneCpu));
  EXPECT_FALSE(p.FitsHere(Shape({{"CPU", 2}})));
}

}  // namespace
}  // namespace ray::scheduler
