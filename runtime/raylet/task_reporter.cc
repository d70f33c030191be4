#include "runtime/raylet/task_reporter.h"

#include <fmt/format.h>

#include "runtime/base/logging.h"
#include "runtime/serialization/running_task.h"

namespace ray::raylet {

const protocol::TaskSpec* CurrentTask(const Client& c, const ActorDirectory& actors) {
  if (c.running) return &*c.running;
  if (c.state != Client::kActor) return nullptr;
  const Actor* a = actors.Find(c.actor_id);
  if (!a || a->inflight.empty()) return nullptr;
  return &a->inflight.front();  // an actor's methods run in order
}

void TaskReporter::Record(const Client& w, const TaskId& task_id, const JobId& job_id,
                          const std::string& function, const char* state, int64_t start_ms,
                          int64_t end_ms) {
  std::string worker = w.is_driver ? fmt::format("driver:{}", w.pid) : std::to_string(w.pid);
  events_.Record(task_id, job_id, function, std::move(worker), state, start_ms, end_ms);
}

void TaskReporter::RecordDirectCalls(const Client& w, const protocol::TaskEvents& calls) {
  for (const auto& e : calls.events) {
    Record(w, e.task_id, e.job_id, e.function, e.failed ? gcs::kTaskFailed : gcs::kTaskFinished,
           e.start_ms, e.end_ms);
  }
}

std::optional<protocol::RunningTask> TaskReporter::RunningTaskOf(Client& c) {
  if (const protocol::TaskSpec* t = CurrentTask(c, actors_)) {
    return protocol::RunningTask{t->task_id, t->job_id, t->function, c.dispatched_ms};
  }
  // Direct calls (to actors, or to leased workers): the worker says what it runs.
  if (c.leased_to.empty() && c.state != Client::kActor) return std::nullopt;
  if (!c.running_slot) {
    c.running_slot =
        protocol::RunningTaskSlot::Open(protocol::RunningTaskPath(session_dir_, c.peer));
    if (!c.running_slot) return std::nullopt;
  }
  // Not one just begun: the worker reports a call of a millisecond or more at its end
  // at once, so a RUNNING row is soon followed by the end.
  auto r = c.running_slot->Read();
  if (!r || clock_.NowMillis() - r->start_ms < kRunningReportMs) return std::nullopt;
  return r;
}

void TaskReporter::WorkerDied(const Client& w, const std::string& how) {
  if (!w.running_slot) return;
  auto r = w.running_slot->Read();
  if (!r || !events_.ReportedRunning(r->task_id)) return;  // no RUNNING row to end
  Record(w, r->task_id, r->job_id, r->function, gcs::kTaskFailed, r->start_ms, clock_.NowMillis());
  RAY_LOG_WARN("worker pid {} died ({}) running {}, called directly", w.pid, how, r->function);
}

void TaskReporter::JobFinished(const JobId& job_id) {
  for (auto& [peer, c] : clients_.all()) {
    auto r = RunningTaskOf(c);
    if (r && r->job_id == job_id && events_.ReportedRunning(r->task_id)) {
      Record(c, r->task_id, r->job_id, r->function, gcs::kTaskFailed, r->start_ms,
             clock_.NowMillis());
    }
  }
  events_.ForgetJob(job_id);
}

void TaskReporter::Flush(const std::set<JobId>& finished_jobs) {
  // RUNNING events only for tasks still running now: a short task costs the GCS one
  // event (its end), a long one shows as RUNNING meanwhile.
  for (auto& [peer, c] : clients_.all()) {
    auto r = RunningTaskOf(c);
    if (!r || finished_jobs.count(r->job_id) || !events_.MarkRunning(r->task_id)) continue;
    Record(c, r->task_id, r->job_id, r->function, gcs::kTaskRunning, r->start_ms, 0);
  }
  const auto& events = events_.pending();
  if (events.empty()) return;
  if (Status st = send_(events); !st.ok()) {
    RAY_LOG_WARN("cannot send {} task events to the GCS (kept for later): {}", events.size(),
                 st.message());
    return;
  }
  if (size_t dropped = events_.Sent(); dropped > 0) {
    RAY_LOG_WARN("{} task events were dropped while the GCS was unreachable", dropped);
  }
}

}  // namespace ray::raylet
