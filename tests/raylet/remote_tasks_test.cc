// RemoteTasks on the raylet's real tables and parts (remote nodes, placement, actors,
// objects, the object locator and lifetime, holds told to other nodes). The frames it
// tells other nodes are decoded and kept, as are the tasks it places here, the results
// it stores, and the pulls the locator starts.

#include "runtime/raylet/remote_tasks.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace ray::raylet {
namespace {

namespace ri = ray::internal;
using protocol::MessageType;
using scheduler::ResourceSet;

class RemoteTasksTest : public ::testing::Test {
 protected:
  RemoteTasksTest()
      : locator_({self_, remote_, placement_, objects_, evicted_,
                  [this](const ObjectId& id, const std::string& node) {
                    pulls_.push_back({id, node});
                    return true;
                  },
                  [](const ObjectId&) { return false; },
                  [](const std::vector<std::string>&) {
                    return Result<std::vector<std::vector<std::string>>>(
                        Status::Unavailable("no GCS in this test"));
                  },
                  [](const ObjectId&, const std::string&) {}, [](protocol::TaskSpec) {}}),
        lifetime_({self_, objects_, peer_holds_, remote_, placement_, clock_,
                   [](const ObjectId&, bool) {}, [](const ActorId&) {},
                   [](const TaskId&) { return false; }, [] { return false; }}),
        tasks_({self_, remote_, placement_, actors_, objects_, locator_, lifetime_, peer_holds_,
                evicted_, clock_,
                [this](const std::string& node, const std::string& frame) {
                  told_.push_back({node, frame});
                  return true;
                },
                [this](protocol::TaskSpec t) { placed_.push_back(std::move(t)); },
                [this](const protocol::ObjectPayload& p) { stored_.push_back(p); },
                [this](const protocol::TaskSpec& t) { return t.job_id == over_; }}) {
    placement_.UpdateNode(b_, true, true, ResourceSet::FromDoubles({{"CPU", 1}}),
                          ResourceSet::FromDoubles({{"CPU", 1}}), 0);
  }

  protocol::TaskSpec Task(const std::string& name, ri::TaskKind kind = ri::kNormalTask) {
    protocol::TaskSpec t;
    t.kind = kind;
    t.task_id = NewTaskId(job_, NodeId::FromBinary(self_));
    t.job_id = job_;
    t.function = name;
    t.plugin = "ab";
    t.resources = {{"CPU", 1}};
    return t;
  }
  // The frames told to other nodes of `type`, decoded as T, with the node each went to.
  template <typename T>
  std::vector<std::pair<std::string, T>> Told(MessageType type) {
    std::vector<std::pair<std::string, T>> out;
    for (const auto& [node, frame] : told_) {
      auto env = protocol::DecodeEnvelope(frame);
      EXPECT_TRUE(env.ok());
      if (!env.ok() || env->type != type) continue;
      auto body = protocol::DecodeBody<T>(env->body, "told");
      EXPECT_TRUE(body.ok());
      if (body.ok()) out.push_back({node, std::move(*body)});
    }
    return out;
  }
  void Store(const ObjectId& id, protocol::ObjectState state, std::string data) {
    objects_.Insert(id, StoredObject{state, std::move(data), "", 0}, [](const auto&) {});
  }

  const JobId job_ = JobId::FromBinary("jjjj");
  JobId over_;  // a job that ended
  const std::string self_ = NodeId::FromRandom().Binary();
  const std::string b_ = NodeId::FromRandom().Binary();
  ManualClock clock_;
  RemoteNodes remote_;
  scheduler::Placement placement_{ResourceSet::FromDoubles({{"CPU", 1}})};
  ActorDirectory actors_;
  ObjectTable objects_{clock_};
  PeerHolds peer_holds_{self_};
  std::unordered_set<ObjectId, IdHash> evicted_;
  std::vector<std::pair<ObjectId, std::string>> pulls_;
  std::vector<std::pair<std::string, std::string>> told_;  // (node, frame)
  std::vector<protocol::TaskSpec> placed_;
  std::vector<protocol::ObjectPayload> stored_;
  ObjectLocator locator_;
  ObjectLifetime lifetime_;
  RemoteTasks tasks_;
};

TEST_F(RemoteTasksTest, ATaskSentToANodeCountsThereAndItsAwaitedResultIsFetched) {
  auto t = Task("f");
  const ObjectId result = ObjectId::ForTaskReturn(t.task_id, 1);
  auto reader = std::make_shared<Waiter>();
  reader->kind = Waiter::kGet;
  reader->ids = {result};
  objects_.AddWaiter(reader, [](const ObjectId&) {});
  tasks_.Send(t, b_);
  auto sent = Told<protocol::ForwardTask>(MessageType::kForwardTask);
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].first, b_);
  EXPECT_EQ(sent[0].second.spec.task_id, t.task_id);
  EXPECT_EQ(sent[0].second.origin_node, self_);
  EXPECT_FALSE(placement_.RemoteWithRoom(ResourceSet::FromDoubles({{"CPU", 1}})))
      << "b's CPU is taken by the task until its reports show it";
  EXPECT_EQ(pulls_, (std::vector<std::pair<ObjectId, std::string>>{{result, b_}}));
  // Its end, reported by b, frees b's CPU and brings its small result.
  protocol::ObjectPayload small;
  small.id = result;
  small.state = static_cast<uint8_t>(protocol::ObjectState::kInline);
  small.data = "42";
  protocol::ObjectPayload stranger = small;
  stranger.id = ObjectId::ForTaskReturn(Task("g").task_id, 1);
  tasks_.FinishedElsewhere(protocol::TaskFinished{t.task_id, b_, {small, stranger}});
  EXPECT_EQ(placement_.RemoteWithRoom(ResourceSet::FromDoubles({{"CPU", 1}})), b_);
  ASSERT_EQ(stored_.size(), 1u) << "only the task's own results";
  EXPECT_EQ(stored_[0].data, "42");
}

TEST_F(RemoteTasksTest, AnActorsCreationTakesTheCallsMadeMeanwhileAlong) {
  auto creation = Task("Actor", ri::kActorCreation);
  const ActorId id = ActorOfCreation(creation.task_id);
  Actor& a = actors_.Entry(id);
  auto call = Task("method", ri::kActorTask);
  call.actor_id = id.Binary();
  a.queue.push_back(call);
  tasks_.Send(creation, b_);
  auto sent = Told<protocol::ForwardTask>(MessageType::kForwardTask);
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].second.spec.function, "Actor");
  EXPECT_EQ(sent[1].second.spec.function, "method");
  EXPECT_EQ(a.remote_node, b_);
  EXPECT_EQ(a.state, Actor::kAlive);
  EXPECT_TRUE(a.queue.empty());
}

TEST_F(RemoteTasksTest, ATaskSentHereFetchesItsArgumentsFromItsOriginAndStaysHere) {
  auto t = Task("f");
  const ObjectId arg = ObjectId::ForPut(NewTaskId(job_, NodeId::FromBinary(b_)), 1);
  t.args.push_back({true, arg.Binary()});
  const ObjectId result = ObjectId::ForTaskReturn(t.task_id, 1);
  evicted_.insert(result);
  tasks_.Received(protocol::ForwardTask{t, b_});
  EXPECT_EQ(pulls_, (std::vector<std::pair<ObjectId, std::string>>{{arg, b_}}));
  ASSERT_EQ(placed_.size(), 1u);
  EXPECT_EQ(placed_[0].task_id, t.task_id);
  EXPECT_FALSE(evicted_.count(result)) << "made here again: not evicted any more";
  // Refused: a malformed task, and one of a job that ended.
  auto bad = Task("bad");
  bad.plugin = "not hex";
  tasks_.Received(protocol::ForwardTask{bad, b_});
  auto late = Task("late");
  over_ = late.job_id;
  tasks_.Received(protocol::ForwardTask{late, b_});
  EXPECT_EQ(placed_.size(), 1u);
}

TEST_F(RemoteTasksTest, ItsOriginHearsItFinishedOnceBorrowsAreAcknowledged) {
  auto t = Task("f");
  t.num_returns = 2;
  tasks_.Received(protocol::ForwardTask{t, b_});
  const ObjectId small = ObjectId::ForTaskReturn(t.task_id, 1);
  const ObjectId shared = ObjectId::ForTaskReturn(t.task_id, 2);
  Store(small, protocol::ObjectState::kInline, "7");
  Store(shared, protocol::ObjectState::kShared, "");
  // Its worker borrowed an object homed on b: b must count that before it lets go of
  // the task's arguments.
  peer_holds_.Borrow(b_, ObjectId::ForPut(NewTaskId(job_, NodeId::FromBinary(b_)), 1));
  uint64_t seq = 0;
  peer_holds_.Flush([&](const std::string&, const auto& m) {
    if constexpr (std::is_same_v<std::decay_t<decltype(m)>, protocol::PeerHolds>) seq = m.seq;
    return true;
  });
  std::vector<protocol::ObjectPayload> returns(2);  // (as the worker reported them)
  returns[0].id = small;
  returns[1].id = shared;
  tasks_.Finished(t.task_id, returns);
  EXPECT_TRUE(Told<protocol::TaskFinished>(MessageType::kTaskFinished).empty());
  peer_holds_.Acked(b_, seq);
  auto finished = Told<protocol::TaskFinished>(MessageType::kTaskFinished);
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_EQ(finished[0].first, b_);
  EXPECT_EQ(finished[0].second.node_id, self_);
  ASSERT_EQ(finished[0].second.returns.size(), 1u) << "the shared-memory result is pulled";
  EXPECT_EQ(finished[0].second.returns[0].data, "7");
  // Told once; a task that started here tells nobody.
  tasks_.Finished(t.task_id, {});
  tasks_.Finished(Task("here").task_id, {});
  EXPECT_EQ(Told<protocol::TaskFinished>(MessageType::kTaskFinished).size(), 1u);
}

}  // namespace
}  // namespace ray::raylet
