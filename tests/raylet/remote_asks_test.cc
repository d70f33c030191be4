#include "runtime/raylet/remote_asks.h"

#include <gtest/gtest.h>

namespace ray::raylet {
namespace {

RemoteAsks::Ask RouteAsk(const std::string& caller, const std::string& node, int64_t at) {
  return {caller, /*request=*/7, ActorId::FromRandom(), node, at};
}
RemoteAsks::Ask LeaseAsk(const std::string& caller, const std::string& node, int64_t at,
                         bool spillback = false) {
  return {caller, /*request=*/9, ActorId(), node, at, /*lease=*/true, spillback};
}

TEST(RemoteAsksTest, AnAnswerTakesItsAskOnceAndOnlyForItsKind) {
  RemoteAsks asks;
  uint64_t route = asks.Open(RouteAsk("c1", "n1", 0));
  uint64_t lease = asks.Open(LeaseAsk("c2", "n2", 0, /*spillback=*/true));
  EXPECT_NE(route, lease);
  // A lease answer naming a route ask (a confused or hostile peer) takes nothing.
  EXPECT_FALSE(asks.Answered(route, /*lease=*/true));
  auto r = asks.Answered(route, /*lease=*/false);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->caller, "c1");
  EXPECT_EQ(r->request, 7u);
  EXPECT_FALSE(asks.Answered(route, false)) << "answered twice";
  auto l = asks.Answered(lease, true);
  ASSERT_TRUE(l);
  EXPECT_TRUE(l->spillback);
  EXPECT_TRUE(asks.empty());
  EXPECT_FALSE(asks.Answered(12345, false)) << "never asked";
}

TEST(RemoteAsksTest, AsksExpireAfterTheTimeoutInTheOrderMadeAndPauseLeasesFromThatNode) {
  RemoteAsks asks;
  asks.Open(LeaseAsk("c1", "slow", 100));
  asks.Open(RouteAsk("c2", "other", 150));
  uint64_t late = asks.Open(LeaseAsk("c3", "slow", 900));
  EXPECT_TRUE(asks.TakeExpired(100 + RemoteAsks::kTimeoutMs - 1).empty());
  EXPECT_FALSE(asks.LeasesPaused("slow", 100 + RemoteAsks::kTimeoutMs - 1));

  const int64_t now = 150 + RemoteAsks::kTimeoutMs;
  auto expired = asks.TakeExpired(now);
  ASSERT_EQ(expired.size(), 2u);
  EXPECT_EQ(expired[0].caller, "c1");
  EXPECT_EQ(expired[1].caller, "c2");
  // The node that left a lease ask unanswered is paused; one that left a route ask is not.
  EXPECT_TRUE(asks.LeasesPaused("slow", now));
  EXPECT_TRUE(asks.LeasesPaused("slow", now + RemoteAsks::kLeasePauseMs - 1));
  EXPECT_FALSE(asks.LeasesPaused("slow", now + RemoteAsks::kLeasePauseMs));
  EXPECT_FALSE(asks.LeasesPaused("other", now));
  // The later ask still waits, and its answer still counts.
  EXPECT_TRUE(asks.Answered(late, true));
}

TEST(RemoteAsksTest, ANodeThatDiesGivesBackItsAsksAndItsLeases) {
  RemoteAsks asks;
  asks.Open(LeaseAsk("c1", "dead", 0));
  uint64_t kept = asks.Open(RouteAsk("c2", "alive", 0));
  asks.Open(RouteAsk("c3", "dead", 0));
  auto taken = asks.TakeAsksTo("dead");
  ASSERT_EQ(taken.size(), 2u);
  EXPECT_EQ(taken[0].caller, "c1");
  EXPECT_EQ(taken[1].caller, "c3");
  EXPECT_TRUE(asks.Answered(kept, false));

  asks.Leased("dead", "c1", "tcp://a");
  asks.Leased("dead", "c2", "tcp://b");
  asks.Leased("alive", "c1", "tcp://c");
  auto leases = asks.TakeLeasesOn("dead");
  EXPECT_EQ(leases, (std::set<std::pair<std::string, std::string>>{{"c1", "tcp://a"},
                                                                   {"c2", "tcp://b"}}));
  EXPECT_TRUE(asks.TakeLeasesOn("dead").empty());
  // Where its workers were stays known: a RanElsewhere sent before the death may come
  // after it (its results are then made again).
  ASSERT_NE(asks.NodeOfEndpoint("tcp://a"), nullptr);
  EXPECT_EQ(*asks.NodeOfEndpoint("tcp://a"), "dead");
}

TEST(RemoteAsksTest, OnlyLeasesGrantedHereAreReportedGone) {
  RemoteAsks asks;
  asks.Leased("n1", "c1", "tcp://a");
  EXPECT_FALSE(asks.LeaseGone("c2", "tcp://a")) << "another caller's lease";
  EXPECT_FALSE(asks.LeaseGone("c1", "tcp://z")) << "an endpoint never leased";
  EXPECT_TRUE(asks.LeaseGone("c1", "tcp://a"));
  EXPECT_FALSE(asks.LeaseGone("c1", "tcp://a")) << "gone twice";
}

TEST(RemoteAsksTest, ACallerThatGoesLosesItsLeasesButTheirEndpointsStayKnown) {
  RemoteAsks asks;
  asks.Leased("n1", "c1", "tcp://a");
  asks.Leased("n1", "c2", "tcp://b");
  asks.NoteEndpoint("tcp://actor", "n2");
  asks.CallerGone("c1");
  EXPECT_EQ(asks.TakeLeasesOn("n1"),
            (std::set<std::pair<std::string, std::string>>{{"c2", "tcp://b"}}));
  ASSERT_NE(asks.NodeOfEndpoint("tcp://actor"), nullptr);
  EXPECT_EQ(*asks.NodeOfEndpoint("tcp://actor"), "n2");
  EXPECT_EQ(asks.NodeOfEndpoint("tcp://unknown"), nullptr);
}

}  // namespace
}  // namespace ray::raylet
