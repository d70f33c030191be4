#include "runtime/worker/task_receiver.h"

#include <unistd.h>

#include <algorithm>
#include <unordered_set>

#include "runtime/base/clock.h"
#include "runtime/base/logging.h"
#include "runtime/base/util.h"
#include "runtime/transport/curve.h"

namespace ray::worker {

using protocol::MessageType;
using protocol::ObjectState;
namespace ri = ray::internal;

namespace {
// How long an idle leased worker waits for its caller's next task.
constexpr int64_t kLeaseIdleMs = 10;
// How long a task from a caller waits for the lease that lets it run.
constexpr int64_t kUnleasedWaitMs = 200;
}  // namespace

Result<std::unique_ptr<TaskReceiver>> TaskReceiver::Bind(const std::string& raylet_endpoint,
                                                         const std::string& worker_id) {
  std::unique_ptr<TaskReceiver> r(new TaskReceiver());
  r->worker_id_ = worker_id;
  RAY_ASSIGN_OR_RETURN(r->endpoint_,
                       r->router_.Bind(transport::WorkerEndpoint(raylet_endpoint, worker_id)));
  // (Without it, senders queue no tasks here.)
  r->gate_ = protocol::StartGate::Create(protocol::StartGatePath(r->endpoint_));
  return r;
}

TaskReceiver::~TaskReceiver() {
  transport::RemoveSocketFile(endpoint_);
  if (running_) ::unlink(running_path_.c_str());
}

void TaskReceiver::Attach(core::RayletConnection* raylet, core::ObjectClient* objects) {
  raylet_ = raylet;
  objects_ = objects;
  // (Without the slot, the state API misses what this worker runs: no error.)
  running_path_ = protocol::RunningTaskPath(raylet_->node().session_dir, worker_id_);
  running_ = protocol::RunningTaskSlot::Create(running_path_);
  raylet_->OnMessage<protocol::ExecuteTask>(MessageType::kExecuteTask, "ExecuteTask",
                                            [this](protocol::ExecuteTask task) {
                                              IncomingTask in{std::move(task), ""};
                                              if (!Dropped(in)) pending_.push_back(std::move(in));
                                            });
  raylet_->OnMessage<protocol::RevokeTasks>(
      MessageType::kRevokeTasks, "RevokeTasks",
      [this](protocol::RevokeTasks revoke) { OnRevokeTasks(revoke); });
  raylet_->OnMessage(MessageType::kExit, [this](std::string_view) { exit_requested_ = true; });
  raylet_->OnMessage<protocol::LeaseGranted>(
      MessageType::kLeaseGranted, "LeaseGranted",
      [this](protocol::LeaseGranted grant) { OnLeaseGranted(grant); });
  raylet_->OnMessage(MessageType::kRevokeLease, [this](std::string_view) { OnRevokeLease(); });
  raylet_->OnMessage(MessageType::kYieldLease, [this](std::string_view) { OnYieldLease(); });
  raylet_->OnMessage(MessageType::kListenTcp, [this](std::string_view) { ListenTcp(); });
  raylet_->AddPollSource(
      {[this](std::vector<zmq::pollitem_t>& items) {
         items.push_back({router_.socket().handle(), 0, ZMQ_POLLIN, 0});
       },
       [this](const zmq::pollitem_t* items, size_t) {
         if (!(items[0].revents & ZMQ_POLLIN)) return;
         while (auto in = router_.Recv(0)) OnDirectFrame(in->peer, in->frame);
       }});
}

void TaskReceiver::ListenTcp() {
  if (listening_tcp_) return;
  listening_tcp_ = true;
  const std::string& ip = raylet_->node().node_address;
  if (ip.empty()) {
    // (An empty endpoint: the raylet answers the asks waiting for it "not now".)
    raylet_->Send(protocol::Encode(MessageType::kTcpEndpoint, 0, protocol::TcpEndpoint{""}));
    return;
  }
  const std::string want = "tcp://" + (ip.find(':') != std::string::npos ? "[" + ip + "]" : ip) + ":*";
  Status curve = transport::MakeCurveServer(router_.socket(), want);  // (for this bind on)
  auto bound = curve.ok() ? router_.Bind(want) : Result<std::string>(curve);
  if (!bound.ok()) {
    RAY_LOG_WARN("callers on other nodes go through the raylets: {}", bound.status().message());
    raylet_->Send(protocol::Encode(MessageType::kTcpEndpoint, 0, protocol::TcpEndpoint{""}));
    return;
  }
  raylet_->Send(protocol::Encode(MessageType::kTcpEndpoint, 0, protocol::TcpEndpoint{*bound}));
}

void TaskReceiver::OnRevokeTasks(const protocol::RevokeTasks& revoke) {
  std::unordered_set<TaskId, IdHash> ids(revoke.task_ids.begin(), revoke.task_ids.end());
  std::erase_if(pending_, [&](const IncomingTask& t) {
    return t.reply_to.empty() && ids.count(t.task.spec.task_id) > 0;
  });
  // (The raylet's marker, if it closed the start gate first: no task of its that did
  // not start is left to drop.)
  OnMarker("");
}

bool TaskReceiver::InLease(const IncomingTask& task) const {
  if (leased_to_.empty() || task.reply_to != leased_to_) return false;
  return task.task.lease == 0 || !gate_ || task.task.lease - 1 == gate_->Lease();
}

bool TaskReceiver::LeaseOver(const IncomingTask& task) const {
  return task.task.lease != 0 && gate_ && task.task.lease - 1 < gate_->Lease();
}

bool TaskReceiver::Dropped(const IncomingTask& task) const {
  return task.task.spec.kind == ri::kNormalTask && draining_.count(task.reply_to) > 0;
}

void TaskReceiver::DropTakenBack(const std::string& sender) {
  draining_.insert(sender);
  std::erase_if(pending_, [&](const IncomingTask& t) { return Dropped(t); });
  std::erase_if(unleased_, [&](const Unleased& u) { return Dropped(u.task); });
}

void TaskReceiver::OnMarker(const std::string& sender) {
  // Every task the sender sent before its marker came before it.
  DropTakenBack(sender);
  draining_.erase(sender);
  if (gate_) gate_->Reopen();
}

void TaskReceiver::OnLeaseGranted(const protocol::LeaseGranted& grant) {
  leased_to_ = grant.caller;
  lease_revoked_ = lease_yield_ = false;
  returned_to_.clear();
  // (A caller on another node needs longer for its first call: its raylet's answer and
  // a connection to make on the way.)
  lease_idle_ms_ = MonoMillis() + std::max<int64_t>(kLeaseIdleMs, grant.first_call_ms);
  // The holder's calls that came before the grant go first, now: its later ones are
  // queued behind them, so that they start in the order sent (the holder counts on it
  // to know which did not start when it closes the gate).
  std::erase_if(unleased_, [&](Unleased& u) {
    if (!InLease(u.task) || Dropped(u.task)) return false;
    pending_.push_back(std::move(u.task));
    return true;
  });
}

void TaskReceiver::OnRevokeLease() {
  // The caller is gone: its tasks not started yet are dropped (and no marker comes).
  std::erase_if(pending_, [&](const IncomingTask& t) { return t.reply_to == leased_to_; });
  if (!leased_to_.empty()) OnMarker(leased_to_);
  lease_revoked_ = !leased_to_.empty();
}

void TaskReceiver::OnYieldLease() {
  // Tasks wait in the raylet: the caller sends nothing more here (what it sent
  // already still runs), and the lease ends as soon as the worker is idle.
  if (leased_to_.empty() || lease_revoked_ || lease_yield_) return;
  lease_yield_ = true;
  (void)router_.Send(leased_to_, protocol::Encode(MessageType::kLeaseReturned, 0, std::string()));
}

std::optional<IncomingTask> TaskReceiver::NextTask() {
  while (true) {
    FlushTaskEvents(/*force=*/false);
    CheckUnleased();
    // (Not while the lease holder's marker is due: the gate is closed until it comes.)
    if (!leased_to_.empty() && pending_.empty() && draining_.count(leased_to_) == 0 &&
        (lease_revoked_ || lease_yield_ || MonoMillis() >= lease_idle_ms_)) {
      (void)raylet_->Pump(0);  // a task may be on its way
      // (Not while the holder closed the gate: its marker comes first.)
      if (pending_.empty() && !leased_to_.empty() && (!gate_ || gate_->EndLease())) {
        ReturnLease();
      }
    }
    if (!pending_.empty()) {
      IncomingTask task = std::move(pending_.front());
      pending_.pop_front();
      const protocol::TaskSpec& spec = task.task.spec;
      if (gate_ && spec.kind == ri::kNormalTask && !gate_->TryStart()) {
        DropTakenBack(task.reply_to);  // its sender runs it elsewhere
        continue;
      }
      if (running_ && !task.reply_to.empty()) {  // the raylet does not know of it
        task.running_entry = running_->Begin({spec.task_id, spec.job_id, spec.function, NowMillis()});
      }
      // This call may run long: the events of the calls before it go first, unless
      // more calls wait (a stream of them) or the events are recent.
      bool stale = MonoMillis() >= task_events_due_ms_ - kTaskEventsDelayMs + kTaskEventsStaleMs;
      if (pending_.empty() && stale) FlushTaskEvents(/*force=*/true);
      return task;
    }
    if (exit_requested_) {
      FlushTaskEvents(/*force=*/true);
      return std::nullopt;
    }
    int timeout = 1000;
    if (!task_events_.empty()) timeout = std::min<int>(timeout, MillisLeft(task_events_due_ms_));
    if (!leased_to_.empty()) timeout = std::min<int>(timeout, MillisLeft(lease_idle_ms_));
    if (!unleased_.empty()) timeout = std::min<int>(timeout, 5);
    if (!raylet_->Pump(timeout)) return std::nullopt;
  }
}

void TaskReceiver::SendTaskDone(const IncomingTask& task, protocol::TaskDone& done) {
  objects_->PromoteEscaped(/*wait_in_flight=*/true);  // the results may hold refs to direct results
  const std::vector<ObjectId> contained = objects_->refs().TakeContained();
  done.contained_refs = contained;
  if (task.reply_to.empty()) {
    // (Borrows kept go first, with the piggyback.)
    raylet_->SendWithPiggyback(protocol::Encode(MessageType::kTaskDone, 0, done), /*all=*/true);
    objects_->refs().CarrierSent(contained);
    return;
  }
  // A direct caller: the raylet hears first of what outlives the call here. Results
  // in shared memory go to it too when the caller is on another node (which cannot map
  // this node's segments: its raylet pulls them).
  bool shared = !task.task.caller_node.empty() &&
                std::any_of(done.returns.begin(), done.returns.end(), [](const auto& r) {
                  return r.state == static_cast<uint8_t>(ObjectState::kShared);
                });
  Status held = done.contained_refs.empty() && !shared
                    ? Status::Ok()
                    : objects_->PutResults(done.returns, done.contained_refs);
  if (held.ok()) held = objects_->SyncBorrows();
  if (!held.ok()) RAY_LOG_WARN("cannot tell the raylet what task results hold: {}", held.message());
  done.contained_refs.clear();
  objects_->refs().CarrierSent(contained);
  raylet_->SendPiggyback();  // borrows let go meanwhile, at once
  if (running_) running_->End(task.running_entry);
  const protocol::TaskSpec& spec = task.task.spec;
  bool failed = std::any_of(done.returns.begin(), done.returns.end(), [](const auto& r) {
    return r.state == static_cast<uint8_t>(ObjectState::kError);
  });
  if (task_events_.empty()) task_events_due_ms_ = MonoMillis() + kTaskEventsDelayMs;
  task_events_.push_back(protocol::TaskEventRecord{spec.task_id, spec.job_id, spec.function,
                                                   done.start_ms, done.end_ms, failed});
  // A call that ran a while (the raylet may have reported it RUNNING) is reported
  // before its caller hears of it, which may end the job and this worker with it.
  FlushTaskEvents(/*force=*/done.end_ms - done.start_ms >= kTaskEventsLongMs);
  // A caller that went away misses its answer; nothing else needs it.
  (void)router_.Send(task.reply_to, protocol::Encode(MessageType::kTaskDone, 0, done));
  if (task.reply_to == leased_to_) lease_idle_ms_ = MonoMillis() + kLeaseIdleMs;
}

void TaskReceiver::FlushTaskEvents(bool force) {
  if (task_events_.empty()) return;
  if (!force && task_events_.size() < kMaxTaskEvents && MonoMillis() < task_events_due_ms_) return;
  protocol::TaskEvents events{std::move(task_events_)};
  task_events_.clear();
  raylet_->SendWithPiggyback(protocol::Encode(MessageType::kTaskEvents, 0, events), /*all=*/false);
}

void TaskReceiver::OnDirectFrame(const std::string& caller, std::string_view frame) {
  auto env = protocol::DecodeEnvelope(frame);
  if (env.ok() && env->type == MessageType::kTakenBack) {
    OnMarker(caller);
    if (caller == leased_to_ && !lease_revoked_) lease_yield_ = true;  // ends once idle
    return;
  }
  auto task = env.ok() && env->type == MessageType::kExecuteTask
                  ? protocol::DecodeBody<protocol::ExecuteTask>(env->body, "ExecuteTask")
                  : Result<protocol::ExecuteTask>(Status::InvalidArgument("not an ExecuteTask"));
  Status valid = task.ok() ? protocol::CheckTaskSpec(task->spec) : task.status();
  if (valid.ok() && task->spec.kind == ri::kActorCreation) {
    valid = Status::InvalidArgument("actors are created through the raylet");
  }
  if (valid.ok()) {
    size_t refs = std::count_if(task->spec.args.begin(), task->spec.args.end(),
                                [](const auto& a) { return a.is_ref; });
    if (refs != task->resolved.size()) valid = Status::InvalidArgument("arguments missing");
  }
  if (!valid.ok()) {
    RAY_LOG_WARN("dropped a direct call from {}: {}", ToHex(caller), valid.message());
    return;
  }
  task->plugin_path.clear();  // found by the worker (actor methods: the actor's plugin)
  IncomingTask in{std::move(task).value(), caller};
  if (Dropped(in)) return;  // taken back by the caller
  if (in.task.spec.kind == ri::kActorTask || InLease(in)) {
    pending_.push_back(std::move(in));
  } else if (LeaseOver(in)) {
    Bounce(caller, in.task.spec.task_id);
  } else {
    unleased_.push_back(Unleased{std::move(in), MonoMillis()});
  }
}

void TaskReceiver::CheckUnleased() {
  while (!unleased_.empty()) {
    Unleased& u = unleased_.front();
    if (Dropped(u.task)) {
      // taken back by its caller
    } else if (InLease(u.task)) {
      pending_.push_back(std::move(u.task));
    } else if (LeaseOver(u.task) || MonoMillis() - u.arrived_ms >= kUnleasedWaitMs ||
               !leased_to_.empty() ||
               u.task.reply_to == returned_to_) {
      Bounce(u.task.reply_to, u.task.task.spec.task_id);
    } else {
      return;  // the oldest may still be let in: so may those behind it
    }
    unleased_.pop_front();
  }
}

void TaskReceiver::Bounce(const std::string& caller, const TaskId& task_id) {
  // The body is the raw task id.
  (void)router_.Send(caller, protocol::Encode(MessageType::kTaskBounced, 0, task_id.Binary()));
}

void TaskReceiver::ReturnLease() {
  FlushTaskEvents(/*force=*/true);
  if (!lease_revoked_ && !lease_yield_) {
    (void)router_.Send(leased_to_, protocol::Encode(MessageType::kLeaseReturned, 0, std::string()));
  }
  raylet_->SendWithPiggyback(protocol::Encode(MessageType::kReturnLease, 0, std::string()),
                             /*all=*/true);
  returned_to_ = leased_to_;
  leased_to_.clear();
  lease_revoked_ = lease_yield_ = false;
}

}  // namespace ray::worker
