#include "runtime/dashboard/task_summary.h"

#include <gtest/gtest.h>

namespace ray::dashboard {
namespace {

using nlohmann::json;

json Row(const std::string& id, const std::string& state, int64_t start, int64_t end) {
  return {{"task_id", id}, {"state", state}, {"start_ms", start}, {"end_ms", end},
          {"duration_ms", end > 0 ? end - start : 0}};
}

TEST(TaskSummaryTest, CountsStatesAndBinsFinishedDurations) {
  json rows = {Row("aa01", "FINISHED", 0, 10), Row("aa02", "FINISHED", 0, 110),
               Row("bb01", "FAILED", 0, 60), Row("cc01", "RUNNING", 5, 0)};
  json s = SummarizeTasks(rows, {"", 200, 10});
  EXPECT_EQ(s["total"], 4);
  EXPECT_EQ(s["counts"]["FINISHED"], 2);
  EXPECT_EQ(s["counts"]["FAILED"], 1);
  EXPECT_EQ(s["counts"]["RUNNING"], 1);
  EXPECT_EQ(s["durations_ms"], json({10, 110, 60}));
  ASSERT_EQ(s["histogram"].size(), 10u);
  EXPECT_EQ(s["histogram"][0]["count"], 1);  // 10
  EXPECT_EQ(s["histogram"][5]["count"], 1);  // 60
  EXPECT_EQ(s["histogram"][9]["count"], 1);  // 110, the top edge in the last bin
  EXPECT_DOUBLE_EQ(s["histogram"][0]["lo_ms"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(s["histogram"][9]["hi_ms"].get<double>(), 110.0);
  EXPECT_FALSE(s.contains("matches"));
}

TEST(TaskSummaryTest, LooksUpByPrefixAndKeepsTheLatestRows) {
  json rows = {Row("aa01", "FINISHED", 0, 10), Row("aa02", "FINISHED", 0, 10),
               Row("bb01", "FINISHED", 0, 10)};
  json s = SummarizeTasks(rows, {"aa", 2, 5});
  ASSERT_EQ(s["matches"].size(), 2u);
  EXPECT_EQ(s["matches"][1]["task_id"], "aa02");
  ASSERT_EQ(s["tasks"].size(), 2u);
  EXPECT_EQ(s["tasks"][0]["task_id"], "aa02");
  EXPECT_EQ(s["tasks"][1]["task_id"], "bb01");
  // Equal durations: one bin.
  ASSERT_EQ(s["histogram"].size(), 1u);
  EXPECT_EQ(s["histogram"][0]["count"], 3);
  EXPECT_TRUE(SummarizeTasks(json::array(), {"zz"})["histogram"].empty());
  EXPECT_TRUE(SummarizeTasks(json::array(), {"zz"})["matches"].empty());
}

// Each run of an actor's constructor (its creation task, the actor's id) ends in one
// FINISHED or FAILED event: the runs past the first are its restarts.
TEST(ActorRestartsTest, CountsTheConstructorsRunsPastTheFirst) {
  auto event = [](const std::string& id, const char* state) {
    gcs::TaskEvent e;
    e.task_id = id;
    e.state = state;
    return e;
  };
  std::string a(16, '\x01'), b(16, '\x02');
  std::vector<gcs::TaskEvent> events = {
      event(a, gcs::kTaskRunning), event(a, gcs::kTaskFinished), event(a, gcs::kTaskFinished),
      event(a, gcs::kTaskFailed),  event(b, gcs::kTaskFinished), event(b, gcs::kTaskProfile),
      event(b, gcs::kTaskRunning)};
  json actors = {{{"actor_id", std::string(32, '0') + "01"}},
                 {{"actor_id", "01010101010101010101010101010101"}},
                 {{"actor_id", "02020202020202020202020202020202"}},
                 {{"actor_id", "03030303030303030303030303030303"}},
                 {{"actor_id", "not hex"}}};
  AddActorRestarts(actors, events);
  EXPECT_EQ(actors[0]["restarts"], 0);
  EXPECT_EQ(actors[1]["restarts"], 2);
  EXPECT_EQ(actors[2]["restarts"], 0);
  EXPECT_EQ(actors[3]["restarts"], 0);
  EXPECT_EQ(actors[4]["restarts"], 0);
}

}  // namespace
}  // namespace ray::dashboard
