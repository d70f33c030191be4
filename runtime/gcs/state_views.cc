#include "runtime/gcs/state_views.h"

#include <map>
#include <set>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "runtime/base/util.h"
#include "runtime/ids/ids.h"

namespace ray::gcs {

namespace {

bool IsFinal(const std::string& state) { return state == kTaskFinished || state == kTaskFailed; }

std::string JobOfHex(const std::string& id_bytes) {
  if (id_bytes.size() != TaskId::kSize) return "";
  return TaskJob(TaskId::FromBinary(id_bytes)).Hex();
}

// Workers record their pid; drivers "driver:<pid>". Returns (pid, is_driver).
std::pair<int64_t, bool> ParseWorker(const std::string& worker) {
  bool driver = worker.rfind("driver:", 0) == 0;
  std::string digits = driver ? worker.substr(7) : worker;
  try {
    return {std::stoll(digits), driver};
  } catch (const std::exception&) {
    return {0, driver};
  }
}

}  // namespace

std::vector<TaskRow> MergeTaskEvents(const std::vector<TaskEvent>& events) {
  std::vector<TaskRow> rows;
  std::unordered_map<std::string, size_t> index;  // task id -> row
  for (const TaskEvent& e : events) {
    if (e.state == kTaskProfile) continue;
    TaskRow row{ToHex(e.task_id), ToHex(e.job_id), e.name,     ToHex(e.node_id),
                e.worker,         e.state,         e.start_ms, e.end_ms};
    auto [it, inserted] = index.emplace(e.task_id, rows.size());
    if (inserted) {
      rows.push_back(std::move(row));
    } else if (IsFinal(e.state) || !IsFinal(rows[it->second].state)) {
      rows[it->second] = std::move(row);
    }
  }
  return rows;
}

std::vector<ActorRecord> ActorRows(const std::vector<ActorRecord>& actors) {
  std::vector<ActorRecord> out;
  out.reserve(actors.size());
  for (const auto& a : actors) {
    std::string job = a.job_id.empty() ? JobOfHex(a.actor_id) : ToHex(a.job_id);
    out.push_back({ToHex(a.actor_id), a.name, ToHex(a.node_id), job, a.state, a.ray_namespace});
  }
  return out;
}

std::string ChromeTrace(const std::vector<TaskEvent>& events,
                        const std::vector<protocol::NodeInfo>& nodes) {
  using nlohmann::json;
  std::map<std::string, int> node_pid;  // node id -> trace pid
  std::map<std::string, std::string> node_label;
  for (const auto& n : nodes) {
    int pid = static_cast<int>(node_pid.size()) + 1;
    node_pid.emplace(n.node_id, pid);
    node_label[n.node_id] = "node " + n.address + " " + ToHex(n.node_id).substr(0, 8);
  }
  json trace = json::array();
  std::set<std::pair<int, int64_t>> rows;  // (pid, tid) already named
  for (const TaskEvent& e : events) {
    if (!IsFinal(e.state) && e.state != kTaskProfile) continue;
    auto [it, inserted] = node_pid.emplace(e.node_id, static_cast<int>(node_pid.size()) + 1);
    if (inserted) node_label[e.node_id] = "node " + ToHex(e.node_id).substr(0, 8);
    int pid = it->second;
    auto [tid, is_driver] = ParseWorker(e.worker);
    if (rows.emplace(pid, tid).second) {
      trace.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", pid}, {"tid", tid},
                       {"args", {{"name", (is_driver ? "driver " : "worker ") +
                                              std::to_string(tid)}}}});
    }
    int64_t end = std::max(e.end_ms, e.start_ms);
    json args = {{"task_id", ToHex(e.task_id)}, {"job_id", ToHex(e.job_id)},
                 {"node_id", ToHex(e.node_id)}, {"state", e.state}};
    trace.push_back({{"name", e.name},
                     {"cat", e.state == kTaskProfile ? "profile" : "task"},
                     {"ph", "X"},
                     {"ts", e.start_ms * 1000},
                     {"dur", (end - e.start_ms) * 1000},
                     {"pid", pid},
                     {"tid", tid},
                     {"args", std::move(args)}});
  }
  for (const auto& [node, pid] : node_pid) {
    trace.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", pid},
                     {"args", {{"name", node_label[node]}}}});
  }
  return json{{"traceEvents", std::move(trace)}, {"displayTimeUnit", "ms"}}.dump();
}

}  // namespace ray::gcs
