#include "runtime/raylet/remote_nodes.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ray::raylet {
namespace {

protocol::TaskSpec Task(uint32_t num_returns) {
  protocol::TaskSpec t;
  t.task_id = NewTaskId(JobId::FromBinary("jjjj"));
  t.num_returns = num_returns;
  return t;
}

ObjectId Return(const protocol::TaskSpec& t, uint32_t i) {
  return ObjectId::ForTaskReturn(t.task_id, i);
}

std::string NodeOf(const RemoteNodes& r, const ObjectId& id) {
  const std::string* node = r.NodeOf(id);
  return node ? *node : "";
}

TEST(RemoteNodesTest, ResultsOfAForwardedTaskAreOnItsNode) {
  RemoteNodes remote;
  auto t = Task(2);
  remote.Forwarded(t, "b");
  EXPECT_EQ(NodeOf(remote, Return(t, 1)), "b");
  EXPECT_EQ(NodeOf(remote, Return(t, 2)), "b");
  EXPECT_EQ(remote.NodeOf(Return(t, 3)), nullptr);
}

TEST(RemoteNodesTest, ATaskRunAgainIsRebuildingUntilAResultComesOrItIsSentAway) {
  RemoteNodes remote;
  auto t = Task(1), u = Task(1);
  const TaskId tid = t.task_id, uid = u.task_id;
  remote.Rebuilding(t.task_id);
  remote.Rebuilding(u.task_id);
  EXPECT_TRUE(remote.IsRebuilding(tid));
  remote.Rebuilt(tid);  // a result of it is stored here
  EXPECT_FALSE(remote.IsRebuilding(tid));
  remote.Forwarded(u, "b");  // b makes it: where its results will be is known
  EXPECT_FALSE(remote.IsRebuilding(uid));
  remote.Rebuilding(t.task_id);
  remote.ForgetJob(JobId::FromBinary("jjjj"));
  EXPECT_FALSE(remote.IsRebuilding(tid));
}

TEST(RemoteNodesTest, ATaskSentOnHasItsResultsWhereItFinished) {
  RemoteNodes remote;
  auto t = Task(1);
  remote.Forwarded(t, "b");
  auto sent = remote.FinishedOn(t.task_id, "c");
  ASSERT_TRUE(sent);  // the task as sent, and where to (the node charged for it)
  EXPECT_EQ(sent->first.task_id, t.task_id);
  EXPECT_EQ(sent->second, "b");
  EXPECT_EQ(NodeOf(remote, Return(t, 1)), "c");
  // Finished: no longer lost with its node.
  EXPECT_TRUE(remote.TakeLostTasks("b").empty());
  EXPECT_FALSE(remote.FinishedOn(t.task_id, "c")) << "told once";
  EXPECT_FALSE(remote.FinishedOn(NewTaskId(JobId::FromBinary("jjjj")), "d"));  // ignored
}

TEST(RemoteNodesTest, ADeadNodeLosesItsUnfinishedTasksAndItsObjects) {
  RemoteNodes remote;
  auto on_b = Task(1), done_on_b = Task(1), on_c = Task(1);
  remote.Forwarded(on_b, "b");
  remote.Forwarded(done_on_b, "b");
  remote.FinishedOn(done_on_b.task_id, "b");
  remote.Forwarded(on_c, "c");
  auto lost = remote.TakeLostTasks("b");
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0].task_id, on_b.task_id);
  EXPECT_EQ(remote.NodeOf(Return(on_b, 1)), nullptr);  // to be placed again
  // The finished task's result was only there.
  EXPECT_EQ(remote.TakeObjectsOn("b"), (std::vector<ObjectId>{Return(done_on_b, 1)}));
  EXPECT_EQ(remote.NodeOf(Return(done_on_b, 1)), nullptr);
  EXPECT_EQ(NodeOf(remote, Return(on_c, 1)), "c");
  EXPECT_TRUE(remote.TakeObjectsOn("b").empty());
}

TEST(RemoteNodesTest, OriginsAreToldOnce) {
  RemoteNodes remote;
  const TaskId t = Task(1).task_id;
  remote.SetOrigin(t, "a");
  EXPECT_TRUE(remote.FromElsewhere(t));
  EXPECT_EQ(remote.TakeOrigin(t), "a");
  EXPECT_FALSE(remote.FromElsewhere(t));
  EXPECT_EQ(remote.TakeOrigin(t), std::nullopt);
}

TEST(RemoteNodesTest, UnlocatedObjectsAreLookedUpUntilDroppedOrLocated) {
  RemoteNodes remote;
  auto t = Task(3);
  for (uint32_t i = 1; i <= 3; ++i) remote.Unlocated(Return(t, i));
  auto ids = remote.ToLocate([&](const ObjectId& id) { return id == Return(t, 2); });
  std::sort(ids.begin(), ids.end());
  std::vector<std::string> want{Return(t, 1).Binary(), Return(t, 3).Binary()};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(ids, want);
  remote.Located(Return(t, 1));
  EXPECT_EQ(remote.ToLocate([](const ObjectId&) { return false; }),
            (std::vector<std::string>{Return(t, 3).Binary()}));
  EXPECT_TRUE(remote.ToLocate([](const ObjectId&) { return true; }).empty());
  EXPECT_TRUE(remote.ToLocate([](const ObjectId&) { return false; }).empty());
}

TEST(RemoteNodesTest, LineageKeepsNormalTasksWithTheNodeTheyFinishedOn) {
  RemoteNodes remote;
  auto t = Task(1);
  t.max_retries = 2;
  remote.Forwarded(t, "b");
  remote.FinishedOn(t.task_id, "c");
  protocol::TaskSpec* kept = remote.LineageOf(Return(t, 1));
  ASSERT_NE(kept, nullptr);
  EXPECT_EQ(kept->task_id, t.task_id);
  EXPECT_EQ(kept->max_retries, 2);
  // A put of the task has the same lineage; the node is where the task finished.
  const TaskId tid = t.task_id;
  EXPECT_EQ(remote.LineageOf(ObjectId::ForPut(tid, 1)), kept);
  ASSERT_NE(remote.LineageNode(tid), nullptr);
  EXPECT_EQ(*remote.LineageNode(tid), "c");

  auto actor_call = Task(1);
  actor_call.kind = ray::internal::kActorTask;
  remote.Forwarded(actor_call, "b");
  EXPECT_EQ(remote.LineageOf(Return(actor_call, 1)), nullptr) << "actor results are not rebuilt";
}

TEST(RemoteNodesTest, ACallWhoseResultCameHasEndedBeforeItsReportComes) {
  RemoteNodes remote;
  auto call = Task(1);
  call.kind = ray::internal::kActorTask;
  call.actor_id = "actor";
  call.caller = "caller";
  remote.Forwarded(call, "b");
  EXPECT_TRUE(remote.HasUnfinishedCall("actor", "caller"));
  EXPECT_FALSE(remote.HasUnfinishedCall("actor", "another caller"));
  // Its result, pulled here for the caller's Get, came before b's report of its end
  // (they travel apart); the caller may have let go of it since.
  remote.Stored(Return(call, 1));
  EXPECT_FALSE(remote.HasUnfinishedCall("actor", "caller"));
  EXPECT_TRUE(remote.FinishedOn(call.task_id, "b")) << "the report is still taken";
}

TEST(RemoteNodesTest, ADirectCallOnAnotherNodeLeavesItsResultsAndANormalTasksLineageThere) {
  RemoteNodes remote;
  auto t = Task(2);
  t.max_retries = 1;
  remote.Rebuilding(t.task_id);
  remote.RanOn(t, "b");
  EXPECT_EQ(NodeOf(remote, Return(t, 1)), "b");
  EXPECT_EQ(NodeOf(remote, Return(t, 2)), "b");
  ASSERT_NE(remote.LineageOf(Return(t, 1)), nullptr);
  const TaskId tid = t.task_id;
  EXPECT_EQ(*remote.LineageNode(tid), "b");
  EXPECT_FALSE(remote.IsRebuilding(tid)) << "it ran again";
  EXPECT_FALSE(remote.HasUnfinishedCall("", "")) << "not waited for: it finished";
  // Lost with its node: the results are taken, the lineage stays to make them again.
  auto lost = remote.TakeObjectsOn("b");
  std::sort(lost.begin(), lost.end());
  std::vector<ObjectId> want{Return(t, 1), Return(t, 2)};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(lost, want);
  EXPECT_NE(remote.LineageOf(Return(t, 1)), nullptr);

  auto actor_call = Task(1);
  actor_call.kind = ray::internal::kActorTask;
  remote.RanOn(actor_call, "c");
  EXPECT_EQ(NodeOf(remote, Return(actor_call, 1)), "c");
  EXPECT_EQ(remote.LineageOf(Return(actor_call, 1)), nullptr) << "actor results are not rebuilt";
}

TEST(RemoteNodesTest, LineageOutlivesTheNodeAndEndsWithTheJob) {
  RemoteNodes remote;
  auto t = Task(1);
  remote.Forwarded(t, "b");
  remote.FinishedOn(t.task_id, "b");
  EXPECT_EQ(remote.TakeObjectsOn("b"), std::vector<ObjectId>{Return(t, 1)});
  EXPECT_NE(remote.LineageOf(Return(t, 1)), nullptr) << "kept to make the object again";
  remote.ForgetJob(JobId::FromBinary("jjjj"));
  EXPECT_EQ(remote.LineageOf(Return(t, 1)), nullptr);
  remote.Forwarded(t, "b");
  remote.ForgetJob(JobId::FromBinary("kkkk"));
  EXPECT_NE(remote.LineageOf(Return(t, 1)), nullptr) << "other jobs' lineage stays";
}

TEST(RemoteNodesTest, ANodeThatLostItsCopyIsNotAskedAgainUntilTheObjectIsStored) {
  RemoteNodes remote;
  auto t = Task(1);
  const ObjectId id = Return(t, 1);
  remote.LostAt(id, "b");
  EXPECT_TRUE(remote.WasLostAt(id, "b"));
  EXPECT_FALSE(remote.WasLostAt(id, "c"));
  remote.Stored(id);
  EXPECT_FALSE(remote.WasLostAt(id, "b"));
  remote.LostAt(id, "b");
  remote.ForgetJob(JobId::FromBinary("jjjj"));
  EXPECT_FALSE(remote.WasLostAt(id, "b")) << "forgotten with its job";
}

}  // namespace
}  // namespace ray::raylet
