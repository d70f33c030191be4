#pragma once
// The task events of one node for the state API and the timeline, waiting to go to the
// GCS in a batch: every task a worker of the node runs (RUNNING while it runs long
// enough to be seen, then FINISHED or FAILED) and the profile spans of its clients.
// While the GCS cannot take them they are kept, up to kMaxBuffered; beyond that the
// oldest are dropped and counted.
//
// Pure bookkeeping: no sockets, no clock; the raylet owns one (not thread-safe).

#include <cstddef>
#include <string>
#include <unordered_set>
#include <vector>

#include "runtime/gcs/gcs_records.h"
#include "runtime/ids/ids.h"

namespace ray::raylet {

class TaskEvents {
 public:
  static constexpr size_t kMaxBuffered = 100000;

  explicit TaskEvents(std::string node_id) : node_id_(std::move(node_id)) {}

  // Records an event of a task run by `worker` on this node; state is one of
  // gcs::kTask*. A FINISHED or FAILED event ends the task's RUNNING report.
  void Record(const TaskId& task_id, const JobId& job_id,
              const std::string& function, std::string worker, const char* state,
              int64_t start_ms, int64_t end_ms);

  // Notes that `task_id` is reported RUNNING; false if it was already (and not ended).
  bool MarkRunning(const TaskId& task_id) { return running_.insert(task_id).second; }
  bool ReportedRunning(const TaskId& task_id) const { return running_.count(task_id) > 0; }
  // Forgets the RUNNING reports of the job's tasks (the job is over).
  void ForgetJob(const JobId& job_id);

  // The events not yet sent, oldest first.
  const std::vector<gcs::TaskEvent>& pending() const { return pending_; }
  // The pending events reached the GCS: they are cleared. Returns how many events
  // were dropped before them (then counted from zero again).
  size_t Sent();

 private:
  std::string node_id_;
  std::vector<gcs::TaskEvent> pending_;
  std::unordered_set<TaskId, IdHash> running_;  // with a RUNNING event, not ended
  size_t dropped_ = 0;                       // while the GCS could not take them
};

}  // namespace ray::raylet
