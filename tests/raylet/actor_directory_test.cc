#include "runtime/raylet/actor_directory.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace ray::raylet {
namespace {

// A 16-byte actor id made of `c`.
ActorId Id(char c) { return ActorId::FromBinary(std::string(ActorId::kSize, c)); }

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

protocol::TaskSpec Method(std::string name, int max_retries) {
  protocol::TaskSpec t;
  t.function = std::move(name);
  t.max_retries = max_retries;
  return t;
}

std::vector<std::string> Names(const std::vector<protocol::TaskSpec>& calls) {
  std::vector<std::string> out;
  for (const auto& t : calls) out.push_back(t.function);
  return out;
}

TEST(ActorTest, ARestartRunsTheCallsInFlightWithRetriesLeftFirst) {
  Actor a;
  a.state = Actor::kAlive;
  a.worker = "w";
  a.head_waiter = std::make_shared<Waiter>();
  auto waiter = a.head_waiter;
  a.inflight = {Method("once", 1), Method("never", 0), Method("always", -1)};
  a.queue = {Method("queued", 0)};
  Actor::Lost lost = a.Die(/*restart=*/true, "crashed");
  EXPECT_EQ(Names(lost.running), std::vector<std::string>{"never"});
  EXPECT_TRUE(lost.queued.empty());
  EXPECT_EQ(a.state, Actor::kRestarting);
  EXPECT_EQ(a.restarts, 1);
  ASSERT_EQ(a.queue.size(), 3u);
  EXPECT_EQ(a.queue[0].function, "once");
  EXPECT_EQ(a.queue[0].max_retries, 0) << "a retry used";
  EXPECT_EQ(a.queue[1].function, "always");
  EXPECT_EQ(a.queue[1].max_retries, -1);
  EXPECT_EQ(a.queue[2].function, "queued");
  EXPECT_TRUE(a.inflight.empty());
  EXPECT_TRUE(a.worker.empty());
  EXPECT_EQ(a.head_waiter, nullptr);
  EXPECT_TRUE(waiter->done) << "the object table skips it";
  EXPECT_TRUE(a.death_cause.empty());
}

TEST(ActorTest, ADeathForGoodFailsEveryCallAndKeepsAKillsCause) {
  Actor a;
  a.state = Actor::kAlive;
  a.inflight = {Method("running", 3)};
  a.queue = {Method("queued", 3)};
  Actor::Lost lost = a.Die(/*restart=*/false, "crashed");
  EXPECT_EQ(Names(lost.running), std::vector<std::string>{"running"});
  EXPECT_EQ(Names(lost.queued), std::vector<std::string>{"queued"});
  EXPECT_EQ(lost.running[0].max_retries, 3) << "no retry used";
  EXPECT_EQ(a.state, Actor::kDead);
  EXPECT_EQ(a.death_cause, "crashed");
  EXPECT_TRUE(a.queue.empty());
  EXPECT_EQ(a.restarts, 0);

  Actor killed;
  killed.killed = true;
  killed.death_cause = "killed by its owner";
  killed.Die(/*restart=*/false, "its worker exited");
  EXPECT_EQ(killed.death_cause, "killed by its owner");
}

TEST(ActorDirectoryTest, EntriesAreMadeOnceAndFound) {
  ActorDirectory actors;
  EXPECT_EQ(actors.Find(Id('a')), nullptr);
  EXPECT_TRUE(actors.Gone(Id('a')));
  actors.Entry(Id('a')).worker = "w";
  ASSERT_NE(actors.Find(Id('a')), nullptr);
  EXPECT_EQ(actors.Entry(Id('a')).worker, "w");
  EXPECT_EQ(actors.Find(Id('a'))->state, Actor::kPending);
  EXPECT_FALSE(actors.Gone(Id('a')));
  actors.Entry(Id('a')).state = Actor::kDead;
  EXPECT_TRUE(actors.Gone(Id('a')));
}

TEST(ActorDirectoryTest, EraseJobForgetsOnlyItsActors) {
  ActorDirectory actors;
  actors.Entry(Id('a')).creation.job_id = JobId::FromBinary("job1");
  actors.Entry(Id('b')).creation.job_id = JobId::FromBinary("job2");
  actors.EraseJob(JobId::FromBinary("job1"));
  EXPECT_EQ(actors.Find(Id('a')), nullptr);
  EXPECT_NE(actors.Find(Id('b')), nullptr);
  int n = 0;
  actors.ForEach([&](const ActorId& id, Actor&) {
    EXPECT_EQ(id, Id('b'));
    ++n;
  });
  EXPECT_EQ(n, 1);
}

TEST(ActorDirectoryTest, PruneOwnedDropsGoneAndDeadActors) {
  ActorDirectory actors;
  actors.Entry(Id('l')).state = Actor::kAlive;
  actors.Entry(Id('p'));
  actors.Entry(Id('d')).state = Actor::kDead;
  std::vector<ActorId> owned{Id('l'), Id('u'), Id('d'), Id('p')};
  actors.PruneOwned(owned);
  EXPECT_EQ(owned, (std::vector<ActorId>{Id('l'), Id('p')}));
}

TEST(ActorDirectoryTest, AnActorIsFoundByItsCreationTasksId) {
  ActorDirectory actors;
  const TaskId creation_task = TaskId::FromBinary(std::string(TaskId::kSize, 'c'));
  actors.Entry(ActorOfCreation(creation_task)).worker = "w";
  ASSERT_NE(actors.Find(Id('c')), nullptr);
  EXPECT_EQ(actors.Find(Id('c'))->worker, "w");
  EXPECT_EQ(CreationTaskOf(Id('c')), creation_task);
  EXPECT_EQ(actors.Find(ActorOfCreation(TaskId::FromBinary(std::string(TaskId::kSize, 'd')))), nullptr);
}

}  // namespace
}  // namespace ray::raylet
