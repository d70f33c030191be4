#include "runtime/raylet/task_events.h"

#include <gtest/gtest.h>

#include "runtime/ids/ids.h"

#include "tests/test_util/named_ids.h"

namespace ray::raylet {
namespace {

// A new task id of `job` (the job is part of the id).
TaskId TaskOf(const JobId& job) { return NewTaskId(job); }

const JobId kJob = JobId::FromBinary("job1");

TEST(TaskEventsTest, RecordsEventsForTheBatchInOrder) {
  TaskEvents events("node");
  events.Record(test_util::TaskNamed("t1"), kJob, "f", "123", gcs::kTaskFinished, 10, 20);
  events.Record(test_util::TaskNamed("t2"), kJob, "g", "driver:7", gcs::kTaskProfile, 30, 40);
  ASSERT_EQ(events.pending().size(), 2u);
  const gcs::TaskEvent& e = events.pending()[0];
  EXPECT_EQ(e.task_id, test_util::TaskNamed("t1").Binary());
  EXPECT_EQ(e.job_id, "job1");
  EXPECT_EQ(e.name, "f");
  EXPECT_EQ(e.node_id, "node");
  EXPECT_EQ(e.worker, "123");
  EXPECT_EQ(e.start_ms, 10);
  EXPECT_EQ(e.end_ms, 20);
  EXPECT_EQ(e.state, gcs::kTaskFinished);
  EXPECT_EQ(events.pending()[1].task_id, test_util::TaskNamed("t2").Binary());
  EXPECT_EQ(events.Sent(), 0u);
  EXPECT_TRUE(events.pending().empty());
}

TEST(TaskEventsTest, RunningIsReportedOnceUntilTheTaskEnds) {
  TaskEvents events("node");
  EXPECT_TRUE(events.MarkRunning(test_util::TaskNamed("t")));
  EXPECT_FALSE(events.MarkRunning(test_util::TaskNamed("t")));
  EXPECT_TRUE(events.ReportedRunning(test_util::TaskNamed("t")));
  events.Record(test_util::TaskNamed("t"), kJob, "f", "1", gcs::kTaskProfile, 0, 1);  // a span: still running
  EXPECT_TRUE(events.ReportedRunning(test_util::TaskNamed("t")));
  events.Record(test_util::TaskNamed("t"), kJob, "f", "1", gcs::kTaskFailed, 0, 1);
  EXPECT_FALSE(events.ReportedRunning(test_util::TaskNamed("t")));
  EXPECT_TRUE(events.MarkRunning(test_util::TaskNamed("t")));  // run again (a retry)
  events.Record(test_util::TaskNamed("t"), kJob, "f", "1", gcs::kTaskFinished, 0, 1);
  EXPECT_FALSE(events.ReportedRunning(test_util::TaskNamed("t")));
}

TEST(TaskEventsTest, ForgetJobEndsOnlyItsTasksReports) {
  TaskEvents events("node");
  JobId a = JobId::FromBinary("aaaa"), b = JobId::FromBinary("bbbb");
  TaskId in_a = TaskOf(a), in_b = TaskOf(b);
  events.MarkRunning(in_a);
  events.MarkRunning(in_b);
  events.ForgetJob(a);
  EXPECT_FALSE(events.ReportedRunning(in_a));
  EXPECT_TRUE(events.ReportedRunning(in_b));
}

TEST(TaskEventsTest, BeyondTheBufferTheOldestAreDroppedAndCounted) {
  TaskEvents events("node");
  for (size_t i = 0; i < TaskEvents::kMaxBuffered + 3; ++i) {
    events.Record(test_util::TaskNamed(std::to_string(i)), kJob, "f", "1", gcs::kTaskFinished, 0, 1);
  }
  EXPECT_EQ(events.pending().size(), TaskEvents::kMaxBuffered);
  EXPECT_EQ(events.pending().front().task_id, test_util::TaskNamed("3").Binary());
  const TaskId last = test_util::TaskNamed(std::to_string(TaskEvents::kMaxBuffered + 2));
  EXPECT_EQ(events.pending().back().task_id, last.Binary());
  EXPECT_EQ(events.Sent(), 3u);
  events.Record(test_util::TaskNamed("x"), kJob, "f", "1", gcs::kTaskFinished, 0, 1);
  EXPECT_EQ(events.Sent(), 0u);  // counted from zero after a send
}

}  // namespace
}  // namespace ray::raylet
