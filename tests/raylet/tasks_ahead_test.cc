#include "runtime/raylet/tasks_ahead.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/serialization/start_gate.h"
#include "tests/raylet/sent_frames.h"
#include "tests/test_util/named_ids.h"
#include "tests/test_util/temp_dir.h"

namespace ray::raylet {
namespace {

using protocol::MessageType;
using protocol::StartGate;

const ResourceSet kOneCpu = ResourceSet::FromDoubles({{"CPU", 1}});

TaskSpec TaskOf(const std::string& name, const std::string& job = "job") {
  TaskSpec t;
  t.task_id = test_util::TaskNamed(name);
  t.job_id = test_util::JobNamed(job);
  t.kind = ray::internal::kNormalTask;
  t.plugin = "p";
  t.function = "f";
  t.resources = {{"CPU", 1}};
  return t;
}

// A node of 2 CPUs, both taken by busy workers w1 and w2 (each running a task of one
// CPU, with a start gate the test plays the worker's side of), its ready queue, and
// the tasks sent ahead and frames sent.
class TasksAheadTest : public ::testing::Test {
 protected:
  TasksAheadTest()
      : ahead_({clients_, ready_, available_, outbox_, [this] { return multi_node_; },
                [this](Client& w, const TaskSpec& t) { sent_to_[w.peer].push_back(t.task_id); }}) {
    for (const char* peer : {"w1", "w2"}) AddBusy(peer);
  }

  void AddBusy(const std::string& peer) {
    clients_.AddStarting(peer);
    Client& w = *clients_.Find(peer);
    clients_.Register(w, 100, "ipc://" + dir_.path() + "/" + peer);
    worker_gates_[peer] = StartGate::Create(protocol::StartGatePath(w.direct_endpoint));
    clients_.TakeFirstIdle();
    w.state = Client::kBusy;
    w.held = kOneCpu;
    ASSERT_NE(w.Gate(), nullptr);
    w.gate_base = w.gate->Starts();
    w.running = TaskOf("running-" + peer);
  }

  // The tasks the frames sent since the last call revoke, by worker.
  std::map<std::string, std::vector<TaskId>> Revoked() {
    std::map<std::string, std::vector<TaskId>> out;
    for (const auto& f : FlushFrames(outbox_)) {
      EXPECT_EQ(f.type, MessageType::kRevokeTasks);
      auto revoke = protocol::DecodeBody<protocol::RevokeTasks>(f.body, "RevokeTasks");
      EXPECT_TRUE(revoke.ok());
      if (revoke.ok()) out[f.peer] = revoke->task_ids;
    }
    return out;
  }

  Client& W(const std::string& peer) { return *clients_.Find(peer); }
  // Tasks "a", "b" and "c" sent ahead to w1 (w2 runs another shape).
  Client& ThreeAheadOnW1() {
    W("w2").held = ResourceSet::FromDoubles({{"CPU", 2}});
    for (const char* name : {"a", "b", "c"}) ready_.Push(kOneCpu, TaskOf(name));
    ahead_.Pipeline();
    return W("w1");
  }

  test_util::TempDir dir_;
  ClientTable clients_;
  scheduler::LocalTaskQueue ready_;
  ResourceSet available_;  // every CPU taken
  Outbox outbox_;
  bool multi_node_ = false;
  std::map<std::string, std::vector<TaskId>> sent_to_;
  std::map<std::string, std::unique_ptr<StartGate>> worker_gates_;
  TasksAhead ahead_;
};

TEST_F(TasksAheadTest, WaitingTasksGoAheadRoundRobinOnlyWhenNoCpuIsFree) {
  for (const char* name : {"a", "b", "c"}) ready_.Push(kOneCpu, TaskOf(name));
  ready_.Push(kOneCpu, TaskOf("other job", "job2"));

  available_ = kOneCpu;
  ahead_.Pipeline();
  EXPECT_TRUE(sent_to_.empty()) << "a CPU is free: they start there";

  available_ = ResourceSet();
  ahead_.Pipeline();
  ASSERT_EQ(sent_to_.size(), 2u);
  EXPECT_EQ(sent_to_["w1"].size() + sent_to_["w2"].size(), 3u);
  EXPECT_GE(sent_to_["w1"].size(), 1u) << "round robin";
  EXPECT_GE(sent_to_["w2"].size(), 1u) << "round robin";
  EXPECT_EQ(W("w1").queued.size(), sent_to_["w1"].size());
  EXPECT_EQ(ready_.num_ready(), 1u) << "a task of another job never goes ahead";
  EXPECT_EQ(ready_.Front(kOneCpu)->task_id, test_util::TaskNamed("other job"));
}

TEST_F(TasksAheadTest, WorkersOfAnotherShapeOrWithoutAGateTakeNothing) {
  W("w1").held = ResourceSet::FromDoubles({{"CPU", 2}});
  W("w2").gate.reset();
  W("w2").direct_endpoint.clear();
  ready_.Push(kOneCpu, TaskOf("a"));
  ahead_.Pipeline();
  EXPECT_TRUE(sent_to_.empty());
  EXPECT_EQ(ready_.num_ready(), 1u);
}

TEST_F(TasksAheadTest, OnAClusterOnlyFunctionsKnownToRunShortGoAhead) {
  multi_node_ = true;
  ready_.Push(kOneCpu, TaskOf("a"));
  ahead_.Pipeline();
  EXPECT_TRUE(sent_to_.empty()) << "unknown: it may spill to another node instead";
  ahead_.Ran(TaskOf("earlier"), 5.0);
  ahead_.Pipeline();
  EXPECT_TRUE(sent_to_.empty()) << "known to run long";
  ahead_.Ran(TaskOf("earlier"), 0.01);
  ahead_.Ran(TaskOf("earlier"), 0.01);
  ahead_.Ran(TaskOf("earlier"), 0.01);
  ahead_.Ran(TaskOf("earlier"), 0.01);
  ahead_.Pipeline();
  EXPECT_EQ(sent_to_["w1"].size() + sent_to_["w2"].size(), 1u) << "known to run short now";
}

TEST_F(TasksAheadTest, AGetTakesBackTheWorkersTasksAheadAndStopsMore) {
  for (const char* name : {"a", "b", "c", "d"}) ready_.Push(kOneCpu, TaskOf(name));
  ahead_.Pipeline();
  Client& w1 = W("w1");
  std::vector<TaskId> ahead1(sent_to_["w1"].begin(), sent_to_["w1"].end());
  ASSERT_FALSE(ahead1.empty());

  ahead_.TakeBack(w1);
  EXPECT_TRUE(w1.queued.empty());
  EXPECT_TRUE(w1.no_pipelining);
  auto revoked = Revoked();
  ASSERT_EQ(revoked.size(), 1u);
  EXPECT_EQ(revoked["w1"], ahead1);
  EXPECT_EQ(ready_.num_ready(), ahead1.size());

  sent_to_.clear();
  ahead_.Pipeline();
  EXPECT_EQ(sent_to_.count("w1"), 0u) << "none go ahead to it until its task ends";
  EXPECT_EQ(sent_to_["w2"].size(), ahead1.size());

  ahead_.TakeBack(w1);
  EXPECT_TRUE(Revoked().empty()) << "nothing ahead: no message";
}

TEST_F(TasksAheadTest, AFreeCpuTakesBackTheBusiestWorkersTasksNotStarted) {
  Client& w1 = ThreeAheadOnW1();
  ASSERT_EQ(w1.queued.size(), 3u);
  StartGate& worker = *worker_gates_["w1"];

  available_ = kOneCpu;
  ahead_.MoveToIdle();
  EXPECT_TRUE(Revoked().empty()) << "its running task has not started: it may be slow to";
  EXPECT_FALSE(w1.marker_due);

  ASSERT_TRUE(worker.TryStart());  // the running task
  ASSERT_TRUE(worker.TryStart());  // "a", sent ahead
  ahead_.MoveToIdle();
  EXPECT_TRUE(w1.marker_due);
  ASSERT_EQ(w1.queued.size(), 1u) << "the task that started stays";
  EXPECT_EQ(w1.queued.front().task_id, test_util::TaskNamed("a"));
  auto revoked = Revoked();
  EXPECT_EQ(revoked["w1"],
            (std::vector<TaskId>{test_util::TaskNamed("b"), test_util::TaskNamed("c")}));
  EXPECT_EQ(ready_.num_ready(), 2u);
  EXPECT_FALSE(worker.TryStart()) << "the gate is closed until the worker reads the marker";

  ahead_.MoveToIdle();
  ahead_.TakeBack(w1);
  EXPECT_TRUE(Revoked().empty()) << "its marker is due: its gate is not closed again";
}

TEST_F(TasksAheadTest, WhenEveryTaskAheadStartedTheMarkerStillReopensTheGate) {
  Client& w1 = ThreeAheadOnW1();
  ASSERT_EQ(w1.queued.size(), 3u);
  StartGate& worker = *worker_gates_["w1"];
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(worker.TryStart());  // all of them started
  available_ = kOneCpu;
  ahead_.MoveToIdle();
  EXPECT_TRUE(w1.marker_due);
  EXPECT_EQ(w1.queued.size(), 3u) << "none taken back";
  auto revoked = Revoked();
  ASSERT_EQ(revoked.count("w1"), 1u) << "the marker goes all the same: the gate is closed";
  EXPECT_TRUE(revoked["w1"].empty());
  EXPECT_EQ(ready_.num_ready(), 0u);
}

TEST_F(TasksAheadTest, TheNextTaskAheadRunsWhenTheRunningOneEnds) {
  ready_.Push(kOneCpu, TaskOf("a"));
  W("w2").held = ResourceSet::FromDoubles({{"CPU", 2}});
  ahead_.Pipeline();
  Client& w1 = W("w1");
  EXPECT_TRUE(ahead_.StartNext(w1, 777));
  EXPECT_EQ(w1.running->task_id, test_util::TaskNamed("a"));
  EXPECT_EQ(w1.dispatched_ms, 777);
  EXPECT_TRUE(w1.queued.empty());
  EXPECT_FALSE(ahead_.StartNext(w1, 778));
  EXPECT_EQ(w1.dispatched_ms, 777);
}

}  // namespace
}  // namespace ray::raylet
