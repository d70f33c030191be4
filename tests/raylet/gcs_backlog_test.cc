#include "runtime/raylet/gcs_backlog.h"

#include <gtest/gtest.h>

#include "tests/test_util/named_ids.h"

namespace ray::raylet {
namespace {

TEST(GcsBacklogTest, SaysOnceThatTheGcsWentDownUntilItComesBack) {
  GcsBacklog backlog;
  EXPECT_FALSE(backlog.CameBack(0));  // no reconnect yet
  EXPECT_TRUE(backlog.WentDown());
  EXPECT_FALSE(backlog.WentDown());
  EXPECT_FALSE(backlog.CameBack(0));
  EXPECT_TRUE(backlog.CameBack(1));
  EXPECT_FALSE(backlog.CameBack(1));  // once per reconnect
  EXPECT_TRUE(backlog.WentDown());    // down again: said again
  EXPECT_TRUE(backlog.CameBack(3));
}

TEST(GcsBacklogTest, DeferredCallsAndActorTasksAreTakenOnceInOrder) {
  GcsBacklog backlog;
  backlog.DeferCall({"p1", 7, "body1"});
  backlog.DeferCall({"p2", 8, "body2"});
  protocol::TaskSpec t;
  t.task_id = test_util::TaskNamed("t1");
  backlog.DeferActorTask(t);
  auto calls = backlog.TakeCalls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].peer, "p1");
  EXPECT_EQ(calls[0].req, 7u);
  EXPECT_EQ(calls[1].body, "body2");
  EXPECT_TRUE(backlog.TakeCalls().empty());
  auto tasks = backlog.TakeActorTasks();
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].task_id, test_util::TaskNamed("t1"));
  EXPECT_TRUE(backlog.TakeActorTasks().empty());
}

TEST(GcsBacklogTest, JobEndsWaitUntilTheGcsTakesThem) {
  GcsBacklog backlog;
  backlog.JobEnded(JobId::FromBinary("job1"), -1);
  backlog.JobEnded(JobId::FromBinary("job2"), 0);
  std::vector<std::string> tried;
  bool up = false;
  auto record = [&](const JobId& job, int32_t) {
    tried.push_back(job.Binary());
    return up ? Status::Ok() : Status::Unavailable("down");
  };
  backlog.RecordJobEnds(record);
  EXPECT_EQ(tried, (std::vector<std::string>{"job2"}));  // stops at the first Unavailable
  up = true;
  backlog.RecordJobEnds(record);
  EXPECT_EQ(tried, (std::vector<std::string>{"job2", "job2", "job1"}));
  backlog.RecordJobEnds(record);
  EXPECT_EQ(tried.size(), 3u);  // recorded once
}

TEST(GcsBacklogTest, AJobEndTheGcsRefusesIsNotTriedAgain) {
  GcsBacklog backlog;
  backlog.JobEnded(JobId::FromBinary("job1"), 0);
  int tries = 0;
  auto refuse = [&](const JobId&, int32_t) {
    ++tries;
    return Status::InvalidArgument("unknown job");
  };
  backlog.RecordJobEnds(refuse);
  backlog.RecordJobEnds(refuse);
  EXPECT_EQ(tries, 1);
}

}  // namespace
}  // namespace ray::raylet
