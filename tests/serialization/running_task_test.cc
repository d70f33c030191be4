// The running-task slot: a worker's calls running at once, read by the raylet through
// a second mapping of the same file (as in another process).

#include "runtime/serialization/running_task.h"

#include <gtest/gtest.h>

#include "tests/test_util/temp_dir.h"

#include "tests/test_util/named_ids.h"

namespace ray::protocol {
namespace {

const JobId kJob = JobId::FromBinary("job1");

TEST(RunningTaskSlotTest, CallsRunningAtOnceAreEachShownUntilTheyEnd) {
  test_util::TempDir dir;
  std::string path = dir.path() + "/w.task";
  auto worker = RunningTaskSlot::Create(path);
  ASSERT_NE(worker, nullptr);
  auto raylet = RunningTaskSlot::Open(path);
  ASSERT_NE(raylet, nullptr);
  EXPECT_EQ(raylet->Read(), std::nullopt);

  int a = worker->Begin({test_util::TaskNamed("task-a"), kJob, "Actor::A", 100});
  int b = worker->Begin({test_util::TaskNamed("task-b"), kJob, "Actor::B", 200});
  ASSERT_NE(a, b);
  auto all = raylet->ReadAll();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].task_id, test_util::TaskNamed("task-a"));  // oldest first
  EXPECT_EQ(all[1].function, "Actor::B");
  EXPECT_EQ(all[1].job_id, kJob);
  EXPECT_EQ(raylet->Read()->task_id, test_util::TaskNamed("task-a"));

  worker->End(a);  // the first ends before the second: B alone is running
  ASSERT_EQ(raylet->ReadAll().size(), 1u);
  EXPECT_EQ(raylet->Read()->task_id, test_util::TaskNamed("task-b"));
  int c = worker->Begin({test_util::TaskNamed("task-c"), kJob, "Actor::C", 300});
  EXPECT_EQ(c, a);  // a free entry is used again
  worker->End(b);
  worker->End(c);
  EXPECT_EQ(raylet->Read(), std::nullopt);
}

TEST(RunningTaskSlotTest, CallsBeyondTheEntriesAreNotShown) {
  test_util::TempDir dir;
  auto worker = RunningTaskSlot::Create(dir.path() + "/w.task");
  ASSERT_NE(worker, nullptr);
  for (int i = 0; i < RunningTaskSlot::kEntries; ++i) {
    EXPECT_GE(worker->Begin({test_util::TaskNamed("t" + std::to_string(i)), kJob, "F", 1 + i}), 0);
  }
  EXPECT_EQ(worker->Begin({test_util::TaskNamed("extra"), kJob, "F", 1000}), -1);
  worker->End(-1);  // (what SendTaskDone does for it: nothing)
  EXPECT_EQ(worker->ReadAll().size(), static_cast<size_t>(RunningTaskSlot::kEntries));
}

}  // namespace
}  // namespace ray::protocol
