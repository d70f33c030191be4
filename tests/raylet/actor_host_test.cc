// ActorHost on the raylet's real tables (actors, clients, objects, outbox). What it asks
// of the node (calls sent to workers or forwarded, tasks failed, creations started,
// workers killed, frames told to other nodes) is kept, in order.

#include "runtime/raylet/actor_host.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tests/raylet/sent_frames.h"

namespace ray::raylet {
namespace {

namespace ri = ray::internal;
using protocol::MessageType;

class ActorHostTest : public ::testing::Test {
 protected:
  ActorHostTest()
      : host_({self_, actors_, clients_, objects_, outbox_, reports_, gcs_, backlog_, placement_,
               [this](const std::string& node, const std::string& frame) {
                 auto env = protocol::DecodeEnvelope(frame);
                 EXPECT_TRUE(env.ok());
                 told_.push_back({node, env->type});
                 return true;
               },
               [this](protocol::TaskSpec t, const std::string& node) {
                 forwarded_.push_back({t.function, node});
               },
               [this](Client& w, const protocol::TaskSpec& t) {
                 sent_.push_back({w.peer, t});
               },
               [this](const protocol::TaskSpec& t, ri::ErrorKind, const std::string& type,
                      const std::string& message) { failed_[t.function] = type + ": " + message; },
               [this](protocol::TaskSpec creation) { started_.push_back(creation.task_id); },
               [this](std::shared_ptr<Waiter> w) { awaited_.push_back(std::move(w)); },
               [this](const std::string& worker) { killed_.push_back(worker); },
               [this](const TaskId& task) { released_.push_back(task); },
               [](const protocol::TaskSpec&) { return false; },
               [this](const TaskId& creation) { dropped_.push_back(creation); }}) {}

  // An actor alive on worker "w1", with `restarts` restarts and `call_retries` retries
  // of its calls.
  Actor& Alive(int restarts = 0, int call_retries = 0) {
    clients_.AddStarting("w1");
    Client& w = *clients_.Find("w1");
    clients_.Register(w, 41, "ipc://w1");
    w.state = Client::kActor;
    w.actor_id = id_;
    Actor& a = actors_.Entry(id_);
    a.state = Actor::kAlive;
    a.worker = "w1";
    a.creation.task_id = CreationTaskOf(id_);
    a.creation.kind = ri::kActorCreation;
    a.creation.max_restarts = restarts;
    a.creation.max_retries = call_retries;
    return a;
  }
  protocol::TaskSpec Call(const std::string& name, const std::vector<ObjectId>& refs = {}) {
    protocol::TaskSpec t;
    t.kind = ri::kActorTask;
    t.task_id = NewTaskId(job_);
    t.actor_id = id_.Binary();
    t.function = name;
    t.max_retries = ri::kActorTaskRetries;
    for (const ObjectId& ref : refs) t.args.push_back({true, ref.Binary()});
    return t;
  }
  std::vector<std::string> SentCalls() {
    std::vector<std::string> names;
    for (const auto& [worker, t] : sent_) names.push_back(t.function);
    return names;
  }

  const JobId job_ = JobId::FromBinary("jjjj");
  const std::string self_ = NodeId::FromRandom().Binary();
  const std::string b_ = NodeId::FromRandom().Binary();
  const ActorId id_ = ActorOfCreation(NewTaskId(job_));
  ActorDirectory actors_;
  ClientTable clients_;
  ObjectTable objects_;
  Outbox outbox_;
  // (Never called here: the GCS is asked only on a cluster, for handles from elsewhere.)
  gcs::GcsClient gcs_{"tcp://127.0.0.1:9", "token", 100};
  GcsReports reports_{gcs_, self_, 1000};
  GcsBacklog backlog_;
  scheduler::Placement placement_{scheduler::ResourceSet{}};
  std::vector<std::pair<std::string, MessageType>> told_;
  std::vector<std::pair<std::string, std::string>> forwarded_;  // (function, node)
  std::vector<std::pair<std::string, protocol::TaskSpec>> sent_;
  std::map<std::string, std::string> failed_;  // function -> error
  std::vector<TaskId> started_, released_, dropped_;
  std::vector<std::shared_ptr<Waiter>> awaited_;
  std::vector<std::string> killed_;
  ActorHost host_;
};

TEST_F(ActorHostTest, CallsRunInOrderAndOneWaitingForAnArgumentHoldsBackTheRest) {
  Alive(0, /*call_retries=*/2);
  const ObjectId arg = ObjectId::ForPut(NewTaskId(job_), 1);
  host_.Submit(Call("first"));
  host_.Submit(Call("second", {arg}));
  host_.Submit(Call("third"));
  EXPECT_EQ(SentCalls(), std::vector<std::string>{"first"});
  EXPECT_EQ(sent_[0].first, "w1");
  EXPECT_EQ(sent_[0].second.max_retries, 2) << "an actor's calls retry as its creation says";
  ASSERT_EQ(awaited_.size(), 1u);
  EXPECT_EQ(awaited_[0]->ids, std::vector<ObjectId>{arg});
  objects_.Insert(arg, StoredObject{protocol::ObjectState::kInline, "v", "", 0},
                  [](const auto&) {});
  host_.ArgumentsReady(id_);
  EXPECT_EQ(SentCalls(), (std::vector<std::string>{"first", "second", "third"}));
}

TEST_F(ActorHostTest, ACallToADeadOrUnknownActorFailsWithWhy) {
  host_.Submit(Call("f"));
  EXPECT_EQ(failed_["f"], "ActorDiedError: actor method f cannot run: no such actor on this node");
  Actor& a = Alive();
  a.state = Actor::kDead;
  a.death_cause = "its job finished";
  host_.Submit(Call("g"));
  EXPECT_EQ(failed_["g"], "ActorDiedError: actor method g cannot run: its job finished");
  EXPECT_TRUE(sent_.empty());
}

TEST_F(ActorHostTest, ADeadActorRestartsWhileItMayThenItsCallsFail) {
  Actor& a = Alive(/*restarts=*/1, /*call_retries=*/1);
  host_.Submit(Call("running"));
  host_.Died(id_, "its worker died");
  EXPECT_EQ(started_, std::vector<TaskId>{CreationTaskOf(id_)}) << "its creation runs again";
  EXPECT_EQ(a.state, Actor::kRestarting);
  EXPECT_TRUE(failed_.empty()) << "the call in flight runs again first";
  ASSERT_EQ(a.queue.size(), 1u);
  // Its second death: no restart left.
  a.state = Actor::kAlive;
  a.worker = "w1";
  host_.Died(id_, "its worker died again");
  EXPECT_EQ(started_.size(), 1u);
  EXPECT_EQ(a.state, Actor::kDead);
  EXPECT_EQ(failed_["running"],
            "ActorDiedError: actor method running cannot run: its worker died again");
  EXPECT_EQ(released_, std::vector<TaskId>{CreationTaskOf(id_)}) << "its constructor's arguments";
  host_.Died(id_, "once more");  // (dead already: nothing)
  EXPECT_EQ(released_.size(), 1u);
}

TEST_F(ActorHostTest, AKillForGoodTellsItsDirectCallersAndKillsItsWorker) {
  Actor& a = Alive(/*restarts=*/5);
  a.direct_callers = {"caller"};
  a.remote_callers = {{b_, "remote-caller"}};
  host_.Kill(id_);
  EXPECT_EQ(killed_, std::vector<std::string>{"w1"});
  EXPECT_TRUE(a.killed);
  EXPECT_FALSE(a.MayRestart());
  auto frames = FlushFrames(outbox_);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].peer, "caller");
  EXPECT_EQ(frames[0].type, MessageType::kActorGone);
  EXPECT_EQ(told_,
            (std::vector<std::pair<std::string, MessageType>>{{b_, MessageType::kPeerActorGone}}));
  // Its worker's exit is its death.
  host_.Died(id_, "the actor's worker died");
  EXPECT_TRUE(started_.empty());
  EXPECT_EQ(a.state, Actor::kDead);
}

TEST_F(ActorHostTest, AKillThatAllowsARestartIsACrash) {
  Actor& a = Alive(/*restarts=*/1);
  a.direct_callers = {"caller"};
  host_.Kill(id_, /*no_restart=*/false);
  EXPECT_EQ(killed_, std::vector<std::string>{"w1"});
  EXPECT_FALSE(a.killed);
  EXPECT_TRUE(a.MayRestart());
  EXPECT_TRUE(FlushFrames(outbox_).empty()) << "callers hear of it when its worker is gone";
}

TEST_F(ActorHostTest, AnActorKilledBeforeItWasPlacedIsDroppedFromTheQueue) {
  Actor& a = actors_.Entry(id_);
  a.creation.task_id = CreationTaskOf(id_);
  host_.Kill(id_);
  EXPECT_EQ(dropped_, std::vector<TaskId>{CreationTaskOf(id_)});
  EXPECT_EQ(a.state, Actor::kDead);
  EXPECT_EQ(a.death_cause, "the actor was killed before it started");
}

TEST_F(ActorHostTest, AnActorOnAnotherNodeIsCalledAndKilledThere) {
  Actor& a = actors_.Entry(id_);
  a.state = Actor::kAlive;
  a.remote_node = b_;
  host_.Submit(Call("f"));
  EXPECT_EQ(forwarded_, (std::vector<std::pair<std::string, std::string>>{{"f", b_}}));
  host_.Kill(id_);
  EXPECT_EQ(told_,
            (std::vector<std::pair<std::string, MessageType>>{{b_, MessageType::kKillActor}}));
  EXPECT_TRUE(killed_.empty());
}

TEST_F(ActorHostTest, AnActorDiesWithItsLastHandleUnlessDetached) {
  Actor& a = Alive();
  a.creation.detached = true;
  host_.Unreferenced(id_);
  EXPECT_TRUE(killed_.empty());
  a.creation.detached = false;
  host_.Unreferenced(id_);
  EXPECT_EQ(killed_, std::vector<std::string>{"w1"});
  EXPECT_EQ(a.death_cause, "all references to the actor were removed");
}

TEST_F(ActorHostTest, AFailedConstructorIsTheActorsDeath) {
  Actor& a = Alive();
  a.state = Actor::kPending;
  Client& w = *clients_.Find("w1");
  w.running = a.creation;
  const ObjectId handle = ObjectId::ForTaskReturn(CreationTaskOf(id_), 1);
  objects_.Insert(
      handle,
      StoredObject{protocol::ObjectState::kError,
                   ri::Pack(ri::ErrorInfo{ri::kTaskException, "ValueError", "bad config", "", ""}),
                   "", 0},
      [](const auto&) {});
  protocol::TaskDone done;
  done.task_id = CreationTaskOf(id_);
  done.returns.resize(1);
  done.returns[0].id = handle;
  done.returns[0].state = static_cast<uint8_t>(protocol::ObjectState::kError);
  host_.Submit(Call("queued"));
  host_.TaskDone(w, done);
  EXPECT_EQ(a.state, Actor::kDead);
  EXPECT_EQ(a.death_cause, "the actor's constructor failed: bad config");
  EXPECT_EQ(killed_, std::vector<std::string>{"w1"});
  EXPECT_EQ(
      failed_["queued"],
      "ActorDiedError: actor method queued cannot run: the actor's constructor failed: bad config");
}

}  // namespace
}  // namespace ray::raylet
