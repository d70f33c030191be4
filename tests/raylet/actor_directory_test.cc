#include "runtime/raylet/actor_directory.h"

#include <gtest/gtest.h>

namespace ray::raylet {
namespace {

protocol::TaskSpec Call(std::string caller) {
  protocol::TaskSpec t;
  t.caller = std::move(caller);
  return t;
}

TEST(ActorTest, MayRestartUpToMaxRestartsOrForeverWhenNegative) {
  Actor a;
  EXPECT_FALSE(a.MayRestart());  // max_restarts 0
  a.creation.max_restarts = 2;
  a.restarts = 1;
  EXPECT_TRUE(a.MayRestart());
  a.restarts = 2;
  EXPECT_FALSE(a.MayRestart());
  a.creation.max_restarts = -1;
  a.restarts = 1000;
  EXPECT_TRUE(a.MayRestart());
}

TEST(ActorTest, CallsFromACallerQueuedOrInFlight) {
  Actor a;
  EXPECT_FALSE(a.HasCallsFrom("me"));
  a.queue.push_back(Call("other"));
  EXPECT_FALSE(a.HasCallsFrom("me"));
  a.inflight.push_back(Call("me"));
  EXPECT_TRUE(a.HasCallsFrom("me"));
  a.inflight.clear();
  a.queue.push_back(Call("me"));
  EXPECT_TRUE(a.HasCallsFrom("me"));
}

TEST(ActorDirectoryTest, EntriesAreMadeOnceAndFound) {
  ActorDirectory actors;
  EXPECT_EQ(actors.Find("a"), nullptr);
  EXPECT_TRUE(actors.Gone("a"));
  actors.Entry("a").worker = "w";
  ASSERT_NE(actors.Find("a"), nullptr);
  EXPECT_EQ(actors.Entry("a").worker, "w");
  EXPECT_EQ(actors.Find("a")->state, Actor::kPending);
  EXPECT_FALSE(actors.Gone("a"));
  actors.Entry("a").state = Actor::kDead;
  EXPECT_TRUE(actors.Gone("a"));
}

TEST(ActorDirectoryTest, EraseJobForgetsOnlyItsActors) {
  ActorDirectory actors;
  actors.Entry("a").creation.job_id = "j1";
  actors.Entry("b").creation.job_id = "j2";
  actors.EraseJob("j1");
  EXPECT_EQ(actors.Find("a"), nullptr);
  EXPECT_NE(actors.Find("b"), nullptr);
  int n = 0;
  actors.ForEach([&](const std::string& id, Actor&) {
    EXPECT_EQ(id, "b");
    ++n;
  });
  EXPECT_EQ(n, 1);
}

TEST(ActorDirectoryTest, PruneOwnedDropsGoneAndDeadActors) {
  ActorDirectory actors;
  actors.Entry("alive").state = Actor::kAlive;
  actors.Entry("pending");
  actors.Entry("dead").state = Actor::kDead;
  std::vector<std::string> owned{"alive", "unknown", "dead", "pending"};
  actors.PruneOwned(owned);
  EXPECT_EQ(owned, (std::vector<std::string>{"alive", "pending"}));
}

TEST(ActorDirectoryTest, RecordsWaitUntilCleared) {
  ActorDirectory actors;
  actors.AddRecord("a", "n", true);
  actors.AddRecord("b", "n", false);
  ASSERT_EQ(actors.records().size(), 2u);
  EXPECT_EQ(actors.records()[1], (ActorDirectory::Record{"b", "n", false}));
  actors.ClearRecords();
  EXPECT_TRUE(actors.records().empty());
}

}  // namespace
}  // namespace ray::raylet
