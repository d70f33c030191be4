// The state API against a real cluster: ray::Nodes, `ray list tasks|actors|objects|
// nodes`, `ray timeline` and ray::Profile spans. Jobs come from state_plugin.cc.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/integration/ray_harness.h"

namespace ray::testing {
namespace {

using nlohmann::json;

constexpr auto kDeadline = std::chrono::seconds(20);

// Polls `check` until it holds or the deadline passes; returns whether it held.
bool Eventually(const std::function<bool()>& check) {
  auto deadline = std::chrono::steady_clock::now() + kDeadline;
  while (std::chrono::steady_clock::now() < deadline) {
    if (check()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return check();
}

class StateApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    temp_ = dir_.path() + "/cluster";
    auto head = RunRay({"start", "--head", "--port", "0", "--num-cpus", "2", "--temp-dir", temp_},
                       dir_.path());
    ASSERT_EQ(head.exit_code, 0) << head.all();
    auto status = RunRay({"status", "--json", "--temp-dir", temp_}, dir_.path());
    ASSERT_EQ(status.exit_code, 0) << status.all();
    address_ = json::parse(status.out)["address"];
  }
  void TearDown() override {
    RunRay({"stop", "--temp-dir", temp_}, dir_.path());
    EXPECT_TRUE(AwaitNoProcessesMentioning(dir_.path()).empty());
  }
  std::vector<std::string> Submit(const std::vector<std::string>& args) {
    std::vector<std::string> argv{"submit", "--address", address_, "--temp-dir", temp_,
                                  IT_STATE_PLUGIN};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }
  json List(const std::string& what) {
    auto r = RunRay({"list", what, "--json", "--temp-dir", temp_}, dir_.path());
    EXPECT_EQ(r.exit_code, 0) << r.all();
    return r.exit_code == 0 ? json::parse(r.out) : json::array();
  }
  // The row of `rows` whose `key` is `value`, or null.
  static json Row(const json& rows, const std::string& key, const std::string& value) {
    for (const auto& r : rows) {
      if (r[key] == value) return r;
    }
    return nullptr;
  }

  TempDir dir_;
  std::string temp_, address_;
};

TEST_F(StateApiTest, ListsTheNodesActorsObjectsAndTasksOfARunningJob) {
  std::string sync = dir_.path() + "/sync";
  ASSERT_EQ(::mkdir(sync.c_str(), 0755), 0);
  int pid = SpawnRay(Submit({"state", sync}), dir_.path());
  ASSERT_GT(pid, 0);
  std::string out;
  bool ready = Eventually([&] {
    out = ReadText(sync + "/out.txt");
    return !out.empty();
  });
  if (!ready) ::kill(pid, SIGKILL);
  ASSERT_TRUE(ready) << "the job did not get to its checks";

  // ray::Nodes, from inside the job.
  std::string self = KeyValue(out, "self");
  EXPECT_EQ(KeyValue(out, "nodes"), "1") << out;
  EXPECT_EQ(KeyValue(out, "node"), self + "|127.0.0.1|1|2") << out;

  json nodes = List("nodes");
  ASSERT_EQ(nodes.size(), 1u) << nodes.dump();
  EXPECT_EQ(nodes[0]["node_id"], self);
  EXPECT_EQ(nodes[0]["state"], "ALIVE");
  EXPECT_EQ(nodes[0]["resources_total"]["CPU"], 2.0);

  // Actors: the named one ALIVE while its job runs, the killed one DEAD.
  std::string keeper = KeyValue(out, "keeper"), doomed = KeyValue(out, "doomed");
  json actors;
  EXPECT_TRUE(Eventually([&] {
    actors = List("actors");
    json k = Row(actors, "actor_id", keeper), d = Row(actors, "actor_id", doomed);
    return !k.is_null() && k["state"] == "ALIVE" && !d.is_null() && d["state"] == "DEAD";
  })) << actors.dump(2);
  json k = Row(actors, "actor_id", keeper);
  if (!k.is_null()) {
    EXPECT_EQ(k["name"], "keeper");
    EXPECT_EQ(k["node_id"], self);
    EXPECT_EQ(k["job_id"], keeper.substr(0, 8));
  }

  // Objects: the 1 MiB result, in this node's store.
  std::string big = KeyValue(out, "big_object");
  json objects;
  EXPECT_TRUE(Eventually([&] {
    objects = List("objects");
    return !Row(objects, "object_id", big).is_null();
  })) << big << " not in " << objects.dump(2);
  json o = Row(objects, "object_id", big);
  if (!o.is_null()) {
    EXPECT_GE(o["size"].get<uint64_t>(), 1u << 20);
    EXPECT_EQ(o["nodes"], json::array({self}));
  }

  // Tasks: what ran, with its final state.
  json tasks;
  auto count = [&](const std::string& name, const std::string& state) {
    int n = 0;
    for (const auto& t : tasks) n += t["name"] == name && t["state"] == state;
    return n;
  };
  // A second actor runs Keeper::Hold meanwhile, called directly (not through the
  // raylet).
  EXPECT_TRUE(Eventually([&] {
    tasks = List("tasks");
    return count("Square", "FINISHED") == 5 && count("Boom", "FAILED") == 1 &&
           count("SpanInTask", "FINISHED") == 1 && count("Keeper::Bump", "FINISHED") == 4 &&
           count("Big", "FINISHED") == 1 && count("Keeper::Hold", "RUNNING") == 1;
  })) << tasks.dump(2);
  for (const auto& t : tasks) {
    EXPECT_EQ(t["node_id"], self);
    EXPECT_EQ(t["job_id"], keeper.substr(0, 8));
    if (t["state"] != "RUNNING") {
      EXPECT_GE(t["end_ms"].get<int64_t>(), t["start_ms"].get<int64_t>()) << t.dump();
    }
    EXPECT_GT(t["start_ms"].get<int64_t>(), 0) << t.dump();
    EXPECT_NE(t["worker_pid"], "");
  }
  json span = Row(tasks, "name", "SpanInTask");
  if (!span.is_null()) {
    EXPECT_GE(span["duration_ms"].get<int64_t>(), 30) << span.dump();
  }

  // The job ends: its actors are DEAD and its objects leave the directory.
  std::ofstream(sync + "/release").put('x');
  int status = -1;
  bool exited = Eventually([&] { return ::waitpid(pid, &status, WNOHANG) == pid; });
  if (!exited) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  ASSERT_TRUE(exited);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_TRUE(Eventually([&] {
    tasks = List("tasks");
    return count("Keeper::Hold", "FINISHED") == 1 && count("Keeper::Hold", "RUNNING") == 0;
  })) << tasks.dump(2);
  EXPECT_TRUE(Eventually([&] {
    json k = Row(List("actors"), "actor_id", keeper);
    return !k.is_null() && k["state"] == "DEAD";
  }));
  EXPECT_TRUE(Eventually([&] { return Row(List("objects"), "object_id", big).is_null(); }));
}

// A direct call shown RUNNING when its job dies (the driver killed) ends FAILED, not
// RUNNING for ever.
TEST_F(StateApiTest, ACallRunningWhenItsJobDiesEndsFailed) {
  std::string sync = dir_.path() + "/sync";
  ASSERT_EQ(::mkdir(sync.c_str(), 0755), 0);
  int pid = SpawnRay(Submit({"state", sync}), dir_.path());
  ASSERT_GT(pid, 0);
  json tasks;
  auto state_of_hold = [&] {
    tasks = List("tasks");
    json row = Row(tasks, "name", "Keeper::Hold");
    return row.is_null() ? std::string() : row["state"].get<std::string>();
  };
  bool running = Eventually([&] { return state_of_hold() == "RUNNING"; });
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  ASSERT_TRUE(running) << tasks.dump(2);
  EXPECT_TRUE(Eventually([&] { return state_of_hold() == "FAILED"; })) << tasks.dump(2);
}

TEST_F(StateApiTest, TimelineHasTasksAndProfileSpansOnTheirWorkersRows) {
  auto r = RunRay(Submit({"state"}), dir_.path());
  ASSERT_EQ(r.exit_code, 0) << r.all();
  std::string file = dir_.path() + "/trace.json";
  json events;
  auto find = [&](const std::string& name) -> json {
    for (const auto& e : events) {
      if (e["ph"] == "X" && e["name"] == name) return e;
    }
    return nullptr;
  };
  ASSERT_TRUE(Eventually([&] {
    auto t = RunRay({"timeline", "--output", file, "--temp-dir", temp_}, dir_.path());
    if (t.exit_code != 0 || t.out.find("written to " + file) == std::string::npos) return false;
    events = json::parse(ReadText(file))["traceEvents"];
    return !find("driver_span").is_null() && !find("inside_task").is_null() &&
           !find("SpanInTask").is_null() && !find("Square").is_null();
  })) << events.dump(1);

  std::map<std::pair<int, int>, std::string> rows;  // (pid, tid) -> row name
  std::map<int, std::string> processes;
  for (const auto& e : events) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("name")) << e.dump();
    if (e["ph"] == "M" && e["name"] == "thread_name") rows[{e["pid"], e["tid"]}] = e["args"]["name"];
    if (e["ph"] == "M" && e["name"] == "process_name") processes[e["pid"]] = e["args"]["name"];
    if (e["ph"] != "X") continue;
    for (const char* key : {"ts", "dur", "tid", "cat", "args"}) {
      EXPECT_TRUE(e.contains(key)) << key << " missing in " << e.dump();
    }
  }
  ASSERT_EQ(processes.size(), 1u);
  EXPECT_EQ(processes.begin()->second.rfind("node 127.0.0.1 ", 0), 0u) << processes.begin()->second;

  json task = find("SpanInTask"), inner = find("inside_task"), driver = find("driver_span");
  EXPECT_EQ(task["cat"], "task");
  EXPECT_EQ(inner["cat"], "profile");
  EXPECT_EQ(driver["cat"], "profile");
  // The span is on its task's row, within the task.
  EXPECT_EQ(inner["pid"], task["pid"]);
  EXPECT_EQ(inner["tid"], task["tid"]);
  EXPECT_EQ(inner["args"]["task_id"], task["args"]["task_id"]);
  EXPECT_GE(inner["ts"].get<int64_t>(), task["ts"].get<int64_t>());
  EXPECT_LE(inner["ts"].get<int64_t>() + inner["dur"].get<int64_t>(),
            task["ts"].get<int64_t>() + task["dur"].get<int64_t>());
  EXPECT_GE(inner["dur"].get<int64_t>(), 30000);
  std::pair<int, int> task_row{task["pid"], task["tid"]}, driver_row{driver["pid"], driver["tid"]};
  EXPECT_EQ(rows[task_row], "worker " + std::to_string(task_row.second));
  // The driver's span is on the driver's row, and the driver's tasks ran inside it.
  EXPECT_EQ(rows[driver_row], "driver " + std::to_string(driver_row.second));
  json square = find("Square");
  EXPECT_GE(square["ts"].get<int64_t>(), driver["ts"].get<int64_t>());
}

TEST_F(StateApiTest, ListWithoutAClusterSaysSo) {
  auto r = RunRay({"list", "tasks", "--temp-dir", dir_.path() + "/nothing"}, dir_.path());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("no running ray node"), std::string::npos) << r.all();
  auto bad = RunRay({"list", "gizmos", "--temp-dir", temp_}, dir_.path());
  EXPECT_NE(bad.exit_code, 0);
}

TEST_F(StateApiTest, TextTablesNameTheirColumns) {
  auto r = RunRay(Submit({"state"}), dir_.path());
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_TRUE(Eventually([&] {
    auto t = RunRay({"list", "tasks", "--temp-dir", temp_}, dir_.path());
    return t.exit_code == 0 && t.out.rfind("task_id", 0) == 0 &&
           CountLines(t.out, " SpanInTask ") == 1;
  }));
  auto n = RunRay({"list", "nodes", "--temp-dir", temp_}, dir_.path());
  EXPECT_EQ(n.exit_code, 0);
  EXPECT_NE(n.out.find("CPU: 2"), std::string::npos) << n.out;
  EXPECT_EQ(CountLines(n.out, "ALIVE"), 1) << n.out;
}

}  // namespace
}  // namespace ray::testing
