#include "runtime/scheduler/worker_starts.h"

#include <gtest/gtest.h>

namespace ray::scheduler {
namespace {

using NoIdle = WorkerStarts::NoIdleWorker;

TEST(WorkerStartsTest, DefaultsFollowTheCpus) {
  WorkerStarts two(0, -1, 2);
  EXPECT_EQ(two.max_workers(), 16u);  // at least 16
  EXPECT_EQ(two.prestart(), 2u);      // one per CPU
  WorkerStarts eight(0, -1, 8.5);
  EXPECT_EQ(eight.max_workers(), 32u);  // 4 per whole CPU
  EXPECT_EQ(eight.prestart(), 8u);
  WorkerStarts set(5, 0, 8);
  EXPECT_EQ(set.max_workers(), 5u);
  EXPECT_EQ(set.prestart(), 0u);
}

TEST(WorkerStartsTest, TheLimitCountsOnlyTaskWorkers) {
  WorkerStarts starts(4, -1, 1);
  EXPECT_EQ(WorkerStarts::TaskWorkers(10, 3), 7u);
  EXPECT_EQ(WorkerStarts::TaskWorkers(2, 3), 0u);  // (an actor's worker still registering)
  EXPECT_EQ(starts.Allowed(10, 0, 0), 4u);
  EXPECT_EQ(starts.Allowed(10, 3, 0), 1u);
  EXPECT_EQ(starts.Allowed(2, 1, 0), 2u);
  EXPECT_FALSE(starts.Full(3, 0));
  EXPECT_TRUE(starts.Full(4, 0));
  // Six processes, three of them actors': three task workers, room for one more.
  EXPECT_EQ(starts.Allowed(10, 6, 3), 1u);
  EXPECT_FALSE(starts.Full(6, 3));
  EXPECT_EQ(starts.Allowed(10, 7, 3), 0u);
  EXPECT_TRUE(starts.Full(7, 3));
  EXPECT_EQ(starts.Allowed(10, 9, 0), 0u);  // (over the limit: none)
}

TEST(WorkerStartsTest, AnActorCreationMayGoBeyondTheLimit) {
  WorkerStarts starts(4, -1, 1);
  EXPECT_EQ(starts.Allowed(1, 4, 0), 0u);
  EXPECT_EQ(starts.Allowed(1, 4, 0, /*beyond_limit=*/true), 1u);
}

TEST(WorkerStartsTest, RunnableTasksStartWhatIdleAndStartingWorkersLackAFewAtATime) {
  EXPECT_EQ(WorkerStarts::ForRunnable(0, 0, 0), 0u);
  EXPECT_EQ(WorkerStarts::ForRunnable(3, 1, 1), 1u);
  EXPECT_EQ(WorkerStarts::ForRunnable(3, 2, 1), 0u);
  EXPECT_EQ(WorkerStarts::ForRunnable(3, 5, 0), 0u);
  EXPECT_EQ(WorkerStarts::ForRunnable(100, 1, 0), WorkerStarts::kAtOnce);
}

TEST(WorkerStartsTest, ATaskNoIdleWorkerServesWaitsForOneStarting) {
  EXPECT_EQ(WorkerStarts::WhenNoIdleWorker(true, 1, false), NoIdle::kWait);
  EXPECT_EQ(WorkerStarts::WhenNoIdleWorker(true, 1, true), NoIdle::kWait);
  // Idle workers of other environments only: one of its own starts.
  EXPECT_EQ(WorkerStarts::WhenNoIdleWorker(true, 0, false), NoIdle::kStartForEnv);
  EXPECT_EQ(WorkerStarts::WhenNoIdleWorker(true, 0, true), NoIdle::kStartForEnv);
  // Every worker busy: a task waits for one (ForRunnable starts more); an actor
  // creation gets a worker of its own.
  EXPECT_EQ(WorkerStarts::WhenNoIdleWorker(false, 0, false), NoIdle::kWait);
  EXPECT_EQ(WorkerStarts::WhenNoIdleWorker(false, 0, true), NoIdle::kStartBeyondLimit);
}

}  // namespace
}  // namespace ray::scheduler
