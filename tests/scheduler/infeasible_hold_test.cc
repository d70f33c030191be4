#include "runtime/scheduler/infeasible_hold.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/test_util/named_ids.h"

namespace ray::scheduler {
namespace {

using Amounts = std::map<std::string, double>;

TaskSpec Task(std::string id, Amounts resources = {{"CPU", 1}}, std::string group = "") {
  TaskSpec t;
  t.task_id = test_util::TaskNamed(std::move(id));
  t.resources = std::move(resources);
  t.placement_group_id = std::move(group);
  return t;
}

std::vector<std::string> Ids(const std::deque<TaskSpec>& tasks) {
  std::vector<std::string> ids;
  for (const auto& t : tasks) ids.push_back(test_util::NameOf(t.task_id));
  return ids;
}

TEST(InfeasibleHoldTest, RetriesAtMostOnceASecondAndTakesEverything) {
  InfeasibleHold hold;
  EXPECT_FALSE(hold.RetryDue(0));  // nothing held
  hold.Hold(Task("a"));
  hold.Hold(Task("b"));
  ASSERT_TRUE(hold.RetryDue(5000));
  EXPECT_FALSE(hold.retrying());
  EXPECT_EQ(Ids(hold.TakeForRetry()), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(hold.retrying());  // what is held again meanwhile is not logged again
  EXPECT_TRUE(hold.empty());
  hold.Hold(Task("a"));
  hold.RetryDone();
  EXPECT_FALSE(hold.retrying());
  EXPECT_FALSE(hold.RetryDue(5000 + InfeasibleHold::kRetryMs - 1));
  EXPECT_TRUE(hold.RetryDue(5000 + InfeasibleHold::kRetryMs));
  EXPECT_FALSE(hold.RetryDue(5000 + InfeasibleHold::kRetryMs + 1));
}

TEST(InfeasibleHoldTest, RetrySoonMakesTheNextRetryDueAtOnce) {
  InfeasibleHold hold;
  hold.Hold(Task("a"));
  ASSERT_TRUE(hold.RetryDue(100));
  EXPECT_FALSE(hold.RetryDue(200));
  hold.RetrySoon();  // the placement groups changed
  EXPECT_TRUE(hold.RetryDue(200));
}

TEST(InfeasibleHoldTest, DemandCountsShapesButNotTasksWaitingForAGroup) {
  InfeasibleHold hold;
  hold.Hold(Task("a", {{"CPU", 64}}));
  hold.Hold(Task("b", {{"CPU", 64}}));
  hold.Hold(Task("c", {{"GPU", 1}}));
  EXPECT_FALSE(hold.WaitsForGroups());
  hold.Hold(Task("d", {{"CPU", 64}}, "pg1"));
  EXPECT_TRUE(hold.WaitsForGroups());
  auto demand = hold.Demand();
  ASSERT_EQ(demand.size(), 2u);
  EXPECT_EQ(demand.at(ResourceSet::FromDoubles({{"CPU", 64}})), 2);
  // A task that names no CPU takes one (as it would run).
  EXPECT_EQ(demand.at(ResourceSet::FromDoubles({{"GPU", 1}, {"CPU", 1}})), 1);
}

TEST(InfeasibleHoldTest, EraseIfSeesEachTaskOnceInOrderAndKeepsTheRest) {
  InfeasibleHold hold;
  for (const char* id : {"a", "b", "c", "d"}) hold.Hold(Task(id));
  std::vector<std::string> seen;
  hold.EraseIf([&](const TaskSpec& t) {
    seen.push_back(test_util::NameOf(t.task_id));
    return test_util::NameOf(t.task_id) == "b" || test_util::NameOf(t.task_id) == "d";
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "b", "c", "d"}));
  ASSERT_TRUE(hold.RetryDue(0));
  EXPECT_EQ(Ids(hold.TakeForRetry()), (std::vector<std::string>{"a", "c"}));
}

TEST(InfeasibleHoldTest, TheAutoscalerIsAskedEveryTwoSecondsAndItsLastAnswerStands) {
  InfeasibleHold hold;
  EXPECT_FALSE(hold.autoscaler_alive());
  EXPECT_TRUE(hold.AutoscalerCheckDue(0));
  hold.AutoscalerChecked(1000, true);
  EXPECT_TRUE(hold.autoscaler_alive());
  EXPECT_FALSE(hold.AutoscalerCheckDue(1000 + InfeasibleHold::kAutoscalerCheckMs - 1));
  EXPECT_TRUE(hold.AutoscalerCheckDue(1000 + InfeasibleHold::kAutoscalerCheckMs));
  hold.AutoscalerChecked(3000, std::nullopt);  // the GCS did not answer
  EXPECT_TRUE(hold.autoscaler_alive());
  EXPECT_FALSE(hold.AutoscalerCheckDue(3001));  // not asked again at once
  hold.AutoscalerChecked(5000, false);
  EXPECT_FALSE(hold.autoscaler_alive());
}

}  // namespace
}  // namespace ray::scheduler
