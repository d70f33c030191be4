// The state API's views of GCS records: task rows merged from events, actor rows,
// and the Chrome trace.

#include "runtime/gcs/state_views.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "runtime/base/util.h"

namespace ray::gcs {
namespace {

using nlohmann::json;

const std::string kTask1(16, '\x01'), kTask2(16, '\x02'), kNode(16, '\x0a'), kJob(4, '\x05');

TEST(StateViewsTest, ATaskIsOneRowWithItsLatestState) {
  std::vector<TaskEvent> events = {
      {kTask1, kJob, "f", kNode, "11", 100, 0, kTaskRunning},
      {kTask2, kJob, "g", kNode, "12", 105, 0, kTaskRunning},
      {"", kJob, "span", kNode, "driver:7", 101, 102, kTaskProfile},
      {kTask1, kJob, "f", kNode, "11", 100, 150, kTaskFinished},
      {kTask1, kJob, "f", kNode, "11", 100, 0, kTaskRunning},  // late: does not undo
  };
  auto rows = MergeTaskEvents(events);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].task_id, ToHex(kTask1));
  EXPECT_EQ(rows[0].job_id, "05050505");
  EXPECT_EQ(rows[0].state, "FINISHED");
  EXPECT_EQ(rows[0].end_ms, 150);
  EXPECT_EQ(rows[1].state, "RUNNING");
  EXPECT_EQ(rows[1].worker, "12");
}

TEST(StateViewsTest, ActorRowsTakeTheirJobFromTheActorId) {
  auto rows = ActorRows({{kTask1, "svc", kNode, "", "ALIVE"}});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].actor_id, ToHex(kTask1));
  EXPECT_EQ(rows[0].job_id, ToHex(kTask1.substr(0, 4)));
  EXPECT_EQ(rows[0].node_id, ToHex(kNode));
  EXPECT_EQ(rows[0].name, "svc");
}

TEST(StateViewsTest, ChromeTraceHasOneRowPerWorkerUnderItsNode) {
  protocol::NodeInfo node;
  node.node_id = kNode;
  node.address = "10.0.0.1";
  std::vector<TaskEvent> events = {
      {kTask1, kJob, "f", kNode, "11", 100, 0, kTaskRunning},
      {kTask1, kJob, "f", kNode, "11", 100, 150, kTaskFinished},
      {kTask2, kJob, "g", kNode, "12", 120, 130, kTaskFailed},
      {kTask1, kJob, "inner", kNode, "11", 110, 120, kTaskProfile},
      {"", kJob, "main", std::string(16, '\x0b'), "driver:7", 90, 160, kTaskProfile},
  };
  json trace = json::parse(ChromeTrace(events, {node}));
  std::vector<json> boxes, threads, processes;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X") boxes.push_back(e);
    if (e["ph"] == "M" && e["name"] == "thread_name") threads.push_back(e);
    if (e["ph"] == "M" && e["name"] == "process_name") processes.push_back(e);
  }
  ASSERT_EQ(boxes.size(), 4u) << "RUNNING events are not boxes";
  EXPECT_EQ(boxes[0]["name"], "f");
  EXPECT_EQ(boxes[0]["cat"], "task");
  EXPECT_EQ(boxes[0]["ts"], 100000);
  EXPECT_EQ(boxes[0]["dur"], 50000);
  EXPECT_EQ(boxes[0]["pid"], 1);
  EXPECT_EQ(boxes[0]["tid"], 11);
  EXPECT_EQ(boxes[0]["args"]["task_id"], ToHex(kTask1));
  EXPECT_EQ(boxes[1]["args"]["state"], "FAILED");
  EXPECT_EQ(boxes[2]["cat"], "profile");
  EXPECT_EQ(boxes[2]["tid"], 11) << "a span is on its worker's row";
  EXPECT_EQ(boxes[3]["pid"], 2) << "an unknown node gets the next pid";
  EXPECT_EQ(boxes[3]["tid"], 7);
  ASSERT_EQ(threads.size(), 3u);
  EXPECT_EQ(threads[2]["args"]["name"], "driver 7");
  ASSERT_EQ(processes.size(), 2u);
  EXPECT_EQ(processes[0]["args"]["name"], "node 10.0.0.1 " + ToHex(kNode).substr(0, 8));
}

}  // namespace
}  // namespace ray::gcs
