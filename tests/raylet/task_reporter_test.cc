#include "runtime/raylet/task_reporter.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "runtime/base/clock.h"
#include "runtime/serialization/running_task.h"
#include "tests/test_util/named_ids.h"
#include "tests/test_util/temp_dir.h"

namespace ray::raylet {
namespace {

using test_util::JobNamed;
using test_util::TaskNamed;

// A reporter over a client table and an actor directory of the test's, whose batches
// go to `sent` (or fail while `gcs_down`).
class TaskReporterTest : public ::testing::Test {
 protected:
  TaskReporterTest()
      : reporter_(
            "node", dir_.path(), clock_,
            [this](const std::vector<gcs::TaskEvent>& events) {
              if (gcs_down_) return Status::Unavailable("the GCS is down");
              sent_.insert(sent_.end(), events.begin(), events.end());
              return Status::Ok();
            },
            clients_, actors_) {
    std::filesystem::create_directories(dir_.path() + "/sockets");
  }

  // A registered worker `peer` (pid 40) running task `task` of `job`, sent at `sent_ms`.
  Client& Running(const std::string& peer, const std::string& task, const JobId& job,
                  int64_t sent_ms) {
    clients_.AddStarting(peer);
    Client& w = *clients_.Find(peer);
    clients_.Register(w, 40, "ipc://" + peer);
    w.state = Client::kBusy;
    TaskSpec t;
    t.task_id = TaskNamed(task);
    t.job_id = job;
    t.function = "f_" + task;
    w.running = t;
    w.dispatched_ms = sent_ms;
    return w;
  }

  // The states sent for task `task`, in order.
  std::vector<std::string> StatesOf(const std::string& task) const {
    std::vector<std::string> states;
    for (const auto& e : sent_) {
      if (e.task_id == TaskNamed(task).Binary()) states.push_back(e.state);
    }
    return states;
  }

  test_util::TempDir dir_;
  ManualClock clock_{1000};
  ClientTable clients_;
  ActorDirectory actors_;
  bool gcs_down_ = false;
  std::vector<gcs::TaskEvent> sent_;
  TaskReporter reporter_;
};

TEST_F(TaskReporterTest, ATaskRunningIsReportedOnceThenItsEnd) {
  Client& w = Running("w1", "t1", JobNamed("j1"), 900);
  reporter_.Flush({});
  reporter_.Flush({});
  ASSERT_EQ(StatesOf("t1"), std::vector<std::string>{gcs::kTaskRunning});
  EXPECT_EQ(sent_[0].start_ms, 900);
  EXPECT_EQ(sent_[0].worker, "40");
  EXPECT_EQ(sent_[0].name, "f_t1");

  reporter_.Record(w, *w.running, gcs::kTaskFinished, 900, 1100);
  w.running.reset();
  reporter_.Flush({});
  EXPECT_EQ(StatesOf("t1"), (std::vector<std::string>{gcs::kTaskRunning, gcs::kTaskFinished}));
}

TEST_F(TaskReporterTest, AnActorsCurrentTaskIsTheMethodExecuting) {
  clients_.AddStarting("w1");
  Client& w = *clients_.Find("w1");
  clients_.Register(w, 40, "ipc://w1");
  EXPECT_EQ(CurrentTask(w, actors_), nullptr) << "an idle worker runs nothing";
  w.state = Client::kActor;
  w.actor_id = ActorOfCreation(TaskNamed("creation"));
  Actor& a = actors_.Entry(w.actor_id);
  EXPECT_EQ(CurrentTask(w, actors_), nullptr) << "no method in flight";
  for (const char* name : {"m1", "m2"}) {
    TaskSpec t;
    t.task_id = TaskNamed(name);
    a.inflight.push_back(t);
  }
  ASSERT_NE(CurrentTask(w, actors_), nullptr);
  EXPECT_EQ(CurrentTask(w, actors_)->task_id, TaskNamed("m1")) << "methods run in order";
}

TEST_F(TaskReporterTest, ADirectCallShowsOnceItHasRunAWhileAndFailsWithItsWorker) {
  clients_.AddStarting("w1");
  Client& w = *clients_.Find("w1");
  clients_.Register(w, 40, "ipc://w1");
  w.leased_to = "caller";
  auto slot = protocol::RunningTaskSlot::Create(protocol::RunningTaskPath(dir_.path(), "w1"));
  ASSERT_TRUE(slot);
  slot->Begin({TaskNamed("call"), JobNamed("j1"), "g", clock_.NowMillis()});

  reporter_.Flush({});
  EXPECT_TRUE(StatesOf("call").empty()) << "a call just begun is not reported";
  clock_.Advance(TaskReporter::kRunningReportMs);
  reporter_.Flush({});
  EXPECT_EQ(StatesOf("call"), std::vector<std::string>{gcs::kTaskRunning});

  std::optional<Client> gone = clients_.Take("w1");  // (as the raylet does when it exits)
  reporter_.WorkerDied(*gone, "killed");
  reporter_.Flush({});
  EXPECT_EQ(StatesOf("call"), (std::vector<std::string>{gcs::kTaskRunning, gcs::kTaskFailed}));
}

TEST_F(TaskReporterTest, AFinishedJobsRunningTasksFailAndAreNotReportedAgain) {
  Running("w1", "ours", JobNamed("j1"), 900);
  Running("w2", "theirs", JobNamed("j2"), 900);
  reporter_.Flush({});
  reporter_.JobFinished(JobNamed("j1"));
  reporter_.Flush({JobNamed("j1")});
  EXPECT_EQ(StatesOf("ours"), (std::vector<std::string>{gcs::kTaskRunning, gcs::kTaskFailed}));
  EXPECT_EQ(StatesOf("theirs"), std::vector<std::string>{gcs::kTaskRunning});
}

TEST_F(TaskReporterTest, EventsWaitWhileTheGcsIsDown) {
  Client& w = Running("w1", "t1", JobNamed("j1"), 900);
  gcs_down_ = true;
  reporter_.Flush({});
  reporter_.Record(w, *w.running, gcs::kTaskFinished, 900, 1100);
  w.running.reset();
  reporter_.Flush({});
  EXPECT_TRUE(sent_.empty());
  EXPECT_EQ(reporter_.pending().size(), 2u);
  gcs_down_ = false;
  reporter_.Flush({});
  EXPECT_EQ(StatesOf("t1"), (std::vector<std::string>{gcs::kTaskRunning, gcs::kTaskFinished}));
  EXPECT_TRUE(reporter_.pending().empty());
}

}  // namespace
}  // namespace ray::raylet
