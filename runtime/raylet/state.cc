// The raylet's part of the state API: task events (every task a worker of this node
// runs, and the profile spans of its clients) batched to the GCS, and the node list
// for ray::Nodes.

#include "runtime/raylet/raylet_impl.h"

namespace ray::raylet {

namespace {

// A direct call is reported RUNNING once it has run this long (milliseconds).
constexpr int64_t kRunningReportMs = 5;

}  // namespace

const TaskSpec* Raylet::CurrentTask(const Client& c) const {
  if (c.running) return &*c.running;
  if (c.state != Client::kActor) return nullptr;
  const Actor* a = actors_.Find(c.actor_id);
  if (!a || a->inflight.empty()) return nullptr;
  return &a->inflight.front();  // an actor's methods run in order
}

void Raylet::RecordTask(const Client& w, const TaskId& task_id, const JobId& job_id,
                        const std::string& function, const char* state, int64_t start_ms,
                        int64_t end_ms) {
  std::string worker = w.is_driver ? fmt::format("driver:{}", w.pid) : std::to_string(w.pid);
  task_events_.Record(task_id, job_id, function, std::move(worker), state, start_ms, end_ms);
}

void Raylet::DirectCallDied(const Client& w, const std::string& how) {
  if (!w.running_slot) return;
  auto r = w.running_slot->Read();
  if (!r || !task_events_.ReportedRunning(r->task_id)) return;  // no RUNNING row to end
  RecordTask(w, r->task_id, r->job_id, r->function, gcs::kTaskFailed, r->start_ms, clock_.NowMillis());
  RAY_LOG_WARN("worker pid {} died ({}) running {}, called directly", w.pid, how, r->function);
}

void Raylet::HandleTaskEvents(Client& c, std::string_view body) {
  auto msg = DecodeFrom<protocol::TaskEvents>(c.peer, body, "TaskEvents");
  if (!msg) return;
  for (const auto& e : msg->events) {
    RecordTask(c, e.task_id, e.job_id, e.function, e.failed ? gcs::kTaskFailed : gcs::kTaskFinished,
               e.start_ms, e.end_ms);
  }
}

void Raylet::FlushActorRecords() {
  const auto& records = actors_.records();
  if (records.empty() || stop_->load()) return;
  Status st = gcs_.RecordActors(records);
  if (st.code() == StatusCode::kUnavailable) return;  // kept, and sent when the GCS is back
  if (!st.ok()) {
    RAY_LOG_WARN("cannot record {} actors in the GCS: {}", records.size(), st.message());
  }
  actors_.ClearRecords();
}

std::optional<protocol::RunningTask> Raylet::RunningTaskOf(Client& c) {
  if (const TaskSpec* t = CurrentTask(c)) {
    return protocol::RunningTask{t->task_id, t->job_id, t->function, c.dispatched_ms};
  }
  // Direct calls (to actors, or to leased workers): the worker says what it runs.
  if (c.leased_to.empty() && c.state != Client::kActor) return std::nullopt;
  if (!c.running_slot) {
    c.running_slot =
        protocol::RunningTaskSlot::Open(protocol::RunningTaskPath(options_.session_dir, c.peer));
    if (!c.running_slot) return std::nullopt;
  }
  // Not one just begun: the worker reports a call of a millisecond or more at its end
  // at once, so a RUNNING row is soon followed by the end.
  auto r = c.running_slot->Read();
  if (!r || clock_.NowMillis() - r->start_ms < kRunningReportMs) return std::nullopt;
  return r;
}

void Raylet::FlushTaskEvents() {
  // RUNNING events only for tasks still running now: a short task costs the GCS one
  // event (its end), a long one shows as RUNNING meanwhile.
  for (auto& [peer, c] : clients_.all()) {
    auto r = RunningTaskOf(c);
    if (!r || finished_jobs_.count(r->job_id) || !task_events_.MarkRunning(r->task_id)) {
      continue;
    }
    RecordTask(c, r->task_id, r->job_id, r->function, gcs::kTaskRunning, r->start_ms, 0);
  }
  const auto& events = task_events_.pending();
  if (events.empty()) return;
  if (Status st = gcs_.AddTaskEvents(events); !st.ok()) {
    RAY_LOG_WARN("cannot send {} task events to the GCS (kept for later): {}", events.size(),
                 st.message());
    return;
  }
  if (size_t dropped = task_events_.Sent(); dropped > 0) {
    RAY_LOG_WARN("{} task events were dropped while the GCS was unreachable", dropped);
  }
}

Result<std::string> Raylet::NodesReply() {
  RAY_ASSIGN_OR_RETURN(auto nodes, gcs_.GetNodes());
  std::vector<ray::NodeInfo> out;
  for (const auto& n : nodes) {
    ray::NodeInfo info;
    info.node_id = ToHex(n.node_id);
    info.address = n.address;
    info.alive = n.state == gcs::kAlive;
    bool self = n.node_id == node_id_.Binary();
    info.resources_total = self ? placement_.local_total().ToDoubles() : n.total;
    info.resources_available = self ? available_.ToDoubles() : n.available;
    if (!info.alive) info.resources_available.clear();
    out.push_back(std::move(info));
  }
  return ri::Pack(out);
}

}  // namespace ray::raylet
