#pragma once
// Views of the GCS tables for the state API (`ray list`, `ray timeline`): task rows
// merged from task events, actors with their job, and the cluster's task events as
// a Chrome trace. Pure functions of what the GCS returned; ids come out as hex.

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/gcs/gcs_records.h"
#include "runtime/serialization/protocol.h"

namespace ray::gcs {

// One task (one attempt that reached a worker) as `ray list tasks` shows it.
struct TaskRow {
  std::string task_id;  // hex
  std::string job_id;   // hex
  std::string name;     // the function or actor method
  std::string node_id;  // hex
  std::string worker;   // the worker's pid
  std::string state;    // RUNNING, FINISHED or FAILED
  int64_t start_ms = 0;
  int64_t end_ms = 0;   // 0 while RUNNING
};

// One row per task id, in order of first appearance: the last FINISHED/FAILED event
// of the task, else its RUNNING event. PROFILE events are not tasks and are skipped.
std::vector<TaskRow> MergeTaskEvents(const std::vector<TaskEvent>& events);

// Actor records with ids as hex and the job id filled in (an actor's id begins with
// its job's).
std::vector<ActorRecord> ActorRows(const std::vector<ActorRecord>& actors);

// The events as Chrome trace JSON (chrome://tracing, Perfetto):
//   {"traceEvents": [{"name", "cat", "ph": "X", "ts" (µs), "dur" (µs), "pid", "tid",
//                     "args"}, ...]}
// one complete ("X") event per finished or failed task ("cat": "task") and per
// profile span ("cat": "profile"). pid numbers the node (1, 2, ... in `nodes` order;
// events of unknown nodes after them) and tid is the worker's (or driver's) pid, so
// each worker is one row under its node; "M" metadata events name the rows
// ("node <ip> <id>", "worker <pid>", "driver <pid>"). Times have the events'
// millisecond resolution. RUNNING events are left out.
std::string ChromeTrace(const std::vector<TaskEvent>& events,
                        const std::vector<protocol::NodeInfo>& nodes);

}  // namespace ray::gcs
