#include "runtime/scheduler/task_durations.h"

#include <gtest/gtest.h>

namespace ray::scheduler {
namespace {

TEST(TaskDurationsTest, UnknownUntilAReportThenItsFirstRun) {
  TaskDurations d;
  EXPECT_FALSE(d.Known("f"));
  EXPECT_FALSE(d.Short("f"));
  EXPECT_FALSE(d.EstimateMs("f").has_value());
  d.Record("f", 0.2);
  EXPECT_TRUE(d.Known("f"));
  EXPECT_TRUE(d.Short("f"));
  EXPECT_DOUBLE_EQ(*d.EstimateMs("f"), 0.2);
  EXPECT_FALSE(d.Known("g"));  // per function
}

TEST(TaskDurationsTest, ASlowFirstRunIsForgottenWithinAFewFastOnes) {
  TaskDurations d;
  d.Record("f", 12.0);  // a fresh worker's first run
  EXPECT_FALSE(d.Short("f"));
  int runs = 0;
  while (!d.Short("f") && runs < 100) {
    d.Record("f", 0.01);
    ++runs;
  }
  EXPECT_LE(runs, 4);
}

TEST(TaskDurationsTest, ASlowerFunctionIsNoticedButOneSlowRunIsNotEnough) {
  TaskDurations d;
  d.Record("f", 0.1);
  d.Record("f", 5.0);  // one slow run
  EXPECT_TRUE(d.Short("f"));
  int runs = 1;
  while (d.Short("f") && runs < 100) {
    d.Record("f", 5.0);
    ++runs;
  }
  EXPECT_GE(runs, 2);
  EXPECT_LE(runs, 5);
  EXPECT_FALSE(d.Short("f"));
}

TEST(TaskDurationsTest, NegativeReportsAreIgnored) {
  TaskDurations d;
  d.Record("f", -1);
  EXPECT_FALSE(d.Known("f"));
}

}  // namespace
}  // namespace ray::scheduler
