#pragma once
// What runs on this node, for the state API and the timeline: the events of the tasks
// its workers run (those the raylet sent, and the direct calls the workers report)
// and the profile spans of its clients, sent to the GCS in batches (TaskEvents keeps
// them meanwhile). A direct call that has run kRunningReportMs shows as RUNNING: the
// reporter reads it in the worker's running-task slot (running_task.h).
//
// The raylet loop owns one (not thread-safe); it reads the raylet's client and actor
// tables, and sends batches through `send` (the GCS's AddTaskEvents).

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "runtime/base/clock.h"
#include "runtime/base/status.h"
#include "runtime/gcs/gcs_records.h"
#include "runtime/ids/ids.h"
#include "runtime/raylet/actor_directory.h"
#include "runtime/raylet/client_table.h"
#include "runtime/raylet/task_events.h"
#include "runtime/serialization/protocol.h"

namespace ray::raylet {

// The task client `c` runs now, as the raylet sent it (an actor: the method
// executing), or null.
const protocol::TaskSpec* CurrentTask(const Client& c, const ActorDirectory& actors);

class TaskReporter {
 public:
  // A direct call is reported RUNNING once it has run this long (milliseconds).
  static constexpr int64_t kRunningReportMs = 5;

  using Send = std::function<Status(const std::vector<gcs::TaskEvent>&)>;

  TaskReporter(const std::string& node_id, std::string session_dir, const Clock& clock, Send send,
               ClientTable& clients, const ActorDirectory& actors)
      : events_(node_id),
        session_dir_(std::move(session_dir)),
        clock_(clock),
        send_(std::move(send)),
        clients_(clients),
        actors_(actors) {}

  // Records an event of a task run by client `w` (a worker, or a driver's profile
  // span): state is one of gcs::kTask*. Sent with the next Flush().
  void Record(const Client& w, const protocol::TaskSpec& t, const char* state, int64_t start_ms,
              int64_t end_ms) {
    Record(w, t.task_id, t.job_id, t.function, state, start_ms, end_ms);
  }
  void Record(const Client& w, const TaskId& task_id, const JobId& job_id,
              const std::string& function, const char* state, int64_t start_ms, int64_t end_ms);
  // The direct calls worker `w` ran (protocol::TaskEvents).
  void RecordDirectCalls(const Client& w, const protocol::TaskEvents& calls);

  // What client `c` runs now, as the state API shows it: a task the raylet sent it, or
  // a direct call that has run kRunningReportMs at least.
  std::optional<protocol::RunningTask> RunningTaskOf(Client& c);
  // Worker `w` died (`how`): the direct call it was running, if reported RUNNING, FAILED.
  void WorkerDied(const Client& w, const std::string& how);
  // The job is over: its tasks shown RUNNING end FAILED, and are forgotten.
  void JobFinished(const JobId& job_id);

  // Reports RUNNING the tasks that run now (but those of `finished_jobs`) and sends
  // the events; kept for the next Flush if that fails.
  void Flush(const std::set<JobId>& finished_jobs);
  // The events not sent yet (for the raylet's last words to the GCS).
  const std::vector<gcs::TaskEvent>& pending() const { return events_.pending(); }

 private:
  TaskEvents events_;
  std::string session_dir_;
  const Clock& clock_;
  Send send_;
  ClientTable& clients_;
  const ActorDirectory& actors_;
};

}  // namespace ray::raylet
