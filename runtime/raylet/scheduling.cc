#include "runtime/raylet/raylet_impl.h"

namespace ray::raylet {

// ---------------------------------------------------------------------------
// Tasks.

bool Raylet::GpusFit(const ResourceSet& need) const {
  return gpus_.ids().empty() || gpus_.CanAcquire(need.Amount("GPU"));
}

void Raylet::HandleSubmit(const std::string& peer, std::string_view body) {
  auto spec = DecodeFrom<TaskSpec>(peer, body, "TaskSpec");
  if (!spec) return;
  Status valid = CheckTaskSpec(*spec);
  if (!valid.ok()) {
    RAY_LOG_WARN("peer {}: refused task {}: {}", Hex(peer), spec->function, valid.message());
    // A task whose results can be named fails with the reason; any other is dropped.
    TaskSpec named;
    named.task_id = spec->task_id;
    named.num_returns = spec->num_returns;
    named.plugin = "0";
    if (CheckTaskSpec(named).ok()) {
      FailTask(*spec, ri::kSystem, "ValueError",
               fmt::format("task {} refused: {}", spec->function, valid.message()));
    }
    return;
  }
  spec->caller = peer;
  if (finished_jobs_.count(spec->job_id)) return;
  lifetime_.AddHolds(spec->contained_refs, ObjectHolds::Task(spec->task_id));
  Place(std::move(*spec), /*may_forward=*/true);
}

void Raylet::Place(TaskSpec spec, bool may_forward) {
  if (spec.kind == ri::kActorTask) {
    actor_host_.Submit(std::move(spec));
    return;
  }
  // (Before it may wait anywhere: its creator owns it from now on, wherever it runs.)
  if (spec.kind == ri::kActorCreation) actor_host_.NoteOwner(spec);
  ResourceSet need = ResourcesOf(spec);
  std::optional<std::string> where;
  if (may_forward) {
    where = placement_.ChooseNode(need, available_, ready_.Waiting(need));
    if (!where && RefreshCluster()) {  // a node may have just joined
      where = placement_.ChooseNode(need, available_, ready_.Waiting(need));
    }
  } else if (placement_.FitsHere(need)) {
    where = "";
  }
  if (!where && !spec.placement_group_id.empty()) {
    // Its bundle is on no node yet (or any more): it waits for its group.
    if (!infeasible_.retrying()) {
      RAY_LOG_INFO("{} {} waits for bundle {} of placement group {}",
                   spec.kind == ri::kActorCreation ? "actor" : "task", spec.function,
                   spec.bundle_index, spec.placement_group_id);
    }
    if (spec.kind == ri::kActorCreation) actors_.Entry(ActorOfCreation(spec.task_id)).creation = spec;
    infeasible_.Hold(std::move(spec));
    return;
  }
  if (!where && may_forward && AutoscalerAlive()) {
    // The autoscaler sees it in this node's load and may add a node that fits.
    if (!infeasible_.retrying()) {
      RAY_LOG_INFO("task {} requires {}, more than any node has; waiting for the autoscaler",
                   spec.function, need.ToString());
    }
    if (spec.kind == ri::kActorCreation) actors_.Entry(ActorOfCreation(spec.task_id)).creation = spec;
    infeasible_.Hold(std::move(spec));
    return;
  }
  if (!where) {
    FailTask(spec, ri::kUnschedulable, "UnschedulableError",
             fmt::format("task {} requires {}, but no node in the cluster has that much "
                         "(cluster total: {})",
                         spec.function, need.ToString(), placement_.ClusterTotal().ToString()));
    if (spec.kind == ri::kActorCreation) {
      Actor& a = actors_.Entry(ActorOfCreation(spec.task_id));
      a.creation = spec;
      a.state = Actor::kDead;
      a.death_cause = "the actor could not be placed: it requires " + need.ToString();
    }
    return;
  }
  if (!where->empty()) {
    remote_tasks_.Send(std::move(spec), *where);
    return;
  }
  if (spec.kind == ri::kActorCreation) {
    Actor& a = actors_.Entry(ActorOfCreation(spec.task_id));
    a.creation = spec;
    a.remote_node.clear();
  }
  Enqueue(std::move(spec));
}

void Raylet::Enqueue(TaskSpec t) {
  // Arguments missing, or spilled (restored in the background first), are waited for.
  if (std::none_of(t.args.begin(), t.args.end(), [&](const ri::TaskArg& a) {
        if (!a.is_ref) return false;
        ObjectId id = ObjectId::FromBinary(a.data);
        return !Ready(id) || store_.Spilled(id);
      })) {
    OnArgsReady(std::move(t));
    return;
  }
  auto w = std::make_shared<Waiter>();
  w->kind = Waiter::kTask;
  for (const auto& a : t.args) {
    if (a.is_ref) w->ids.push_back(ObjectId::FromBinary(a.data));
  }
  w->task = std::move(t);
  reads_.Await(w);
}

void Raylet::OnArgsReady(TaskSpec t) {
  if (JobOver(t)) return;  // waited for arguments past its job's end
  if (t.kind == ri::kActorCreation) {
    const Actor* a = actors_.Find(ActorOfCreation(t.task_id));
    if (a && a->state == Actor::kDead) return;  // killed while waiting
  }
  ResourceSet need = ResourcesOf(t);
  if (!t.placement_group_id.empty() && !placement_.FitsHere(need)) {
    Place(std::move(t), /*may_forward=*/true);  // its bundle left this node (a retry)
    return;
  }
  ready_.Push(need, std::move(t));
}

void Raylet::StartWorkerFor(const std::string& env) {
  if (starts_.Full(pool_->size(), clients_.Actors())) {
    // The pool is full: an idle worker of another environment makes room.
    for (const std::string& peer : clients_.idle()) {
      Client* found = clients_.Find(peer);
      if (!found) continue;
      Client& w = *found;
      if (w.state == Client::kIdle && !w.Serves(env)) {
        RAY_LOG_INFO("ending idle worker {} (runtime_env '{}') to start one for '{}'",
                     Hex(peer), w.runtime_env, env);
        w.state = Client::kStarting;  // not idle again; its exit is reaped as usual
        pool_->Kill(peer);
        break;
      }
    }
  }
  StartWorkers(1);
}

void Raylet::StartWorkers(size_t wanted, bool beyond_limit) {
  if (wanted == 0) return;  // (Dispatch asks every turn: no count of the actors then)
  for (size_t n = starts_.Allowed(wanted, pool_->size(), clients_.Actors(), beyond_limit); n > 0; --n) {
    auto id = pool_->Start();
    if (!id.ok()) {
      RAY_LOG_ERROR("cannot start a worker: {}", id.status().message());
      return;
    }
    clients_.AddStarting(*id);
  }
}

void Raylet::Dispatch() {
  if (ready_.empty()) {
    leases_.Offer();
    return;
  }
  ready_.StartFitting(
      available_, [&](const ResourceSet& need) { return GpusFit(need); },
      [&](const ResourceSet& need, TaskSpec& t) {
        Client* idle = clients_.FirstIdle(t.runtime_env);
        if (!idle) {
          // Idle workers of other runtime environments are no use to it: one of its
          // own starts (making room by ending an idle one if the pool is full).
          using NoIdle = scheduler::WorkerStarts::NoIdleWorker;
          switch (scheduler::WorkerStarts::WhenNoIdleWorker(!clients_.idle().empty(), clients_.starting(),
                                                            t.kind == ri::kActorCreation)) {
            case NoIdle::kStartForEnv: StartWorkerFor(t.runtime_env); break;
            case NoIdle::kStartBeyondLimit: StartWorkers(1, /*beyond_limit=*/true); break;
            case NoIdle::kWait: break;
          }
          return false;
        }
        if (!plugins_.Ensure(t.plugin)) return false;  // the GCS is down: after it is back
        Client& w = *idle;
        clients_.TakeFirstIdle();
        w.Bind(t.runtime_env);
        w.held = need;
        if (auto grant = gpus_.Acquire(need.Amount("GPU"))) w.gpus = std::move(*grant);
        if (t.kind == ri::kActorCreation) {
          w.state = Client::kActor;
          w.actor_id = ActorOfCreation(t.task_id);
          actors_.Entry(ActorOfCreation(t.task_id)).worker = w.peer;
        } else {
          w.state = Client::kBusy;
          if (protocol::StartGate* gate = w.Gate()) w.gate_base = gate->Starts();  // idle
        }
        SendExecute(w, t);
        w.running = std::move(t);
        return true;
      });
  if (MultiNode()) SpillQueued();
  ahead_.Pipeline();
  leases_.Offer();
  leases_.Reclaim();
  // Start workers for tasks that could start now if there were workers.
  StartWorkers(scheduler::WorkerStarts::ForRunnable(ready_.Runnable(available_, starts_.max_workers()),
                                                   clients_.idle().size(), clients_.starting()));
}

void Raylet::SendExecute(Client& w, const TaskSpec& t, bool ahead) {
  std::vector<ObjectPayload> resolved;
  for (const auto& a : t.args) {
    if (a.is_ref) resolved.push_back(reads_.PayloadOf(ObjectId::FromBinary(a.data)));
  }
  std::vector<int32_t> gpu_ids;
  for (int id : w.gpus.ids()) gpu_ids.push_back(id);
  w.last_job = t.job_id;
  if (!ahead) w.dispatched_ms = clock_.NowMillis();
  // An ExecuteTask, packed field by field so that the spec is not copied (every field,
  // in its order: the worker decodes the struct).
  SendMsg(w.peer, MessageType::kExecuteTask, 0,
          std::forward_as_tuple(t, resolved, plugins_.PathOf(t.plugin), gpu_ids, uint64_t{0},
                                /*caller_node=*/std::string()));
}

void Raylet::HandleTaskDone(Client& c, std::string_view body) {
  auto msg = DecodeFrom<protocol::TaskDone>(c.peer, body, "TaskDone");
  if (!msg) return;
  StoreHolding(msg->returns, msg->contained_refs);
  remote_tasks_.Finished(msg->task_id, msg->returns);
  if (const TaskSpec* spec = CurrentTask(c, actors_); spec && spec->task_id == msg->task_id) {
    // (Only a cluster's raylet sends tasks ahead by how long they run: see tasks_ahead.h.)
    if (msg->run_us >= 0 && spec->kind == ri::kNormalTask && MultiNode()) {
      ahead_.Ran(*spec, static_cast<double>(msg->run_us) / 1000.0);
    }
    bool failed = std::any_of(msg->returns.begin(), msg->returns.end(), [](const auto& r) {
      return r.state == static_cast<uint8_t>(ObjectState::kError);
    });
    reporter_.Record(c, *spec, failed ? gcs::kTaskFailed : gcs::kTaskFinished,
               msg->start_ms > 0 ? msg->start_ms : c.dispatched_ms,
               msg->end_ms > 0 ? msg->end_ms : clock_.NowMillis());
  }

  if (c.state == Client::kActor) {
    actor_host_.TaskDone(c, *msg);
    return;
  }
  if (!c.running || c.running->task_id != msg->task_id) {
    RAY_LOG_WARN("worker {} reported task {} it was not running", Hex(c.peer), msg->task_id.Hex());
    return;
  }
  TaskSpec done = std::move(*c.running);
  c.running.reset();
  c.no_pipelining = false;
  ++c.gate_base;
  int calls = ++c.calls[done.function];
  if (ahead_.StartNext(c, clock_.NowMillis())) return;
  available_.Add(c.held);
  c.held = ResourceSet();
  gpus_.Release(c.gpus);
  c.gpus = GpuGrant();
  c.blocked = false;
  c.blocking.clear();
  c.marker_due = false;  // (the next tasks sent to it come after the marker)
  if (done.max_calls > 0 && calls >= done.max_calls) {
    Send(c.peer, MessageType::kExit, 0, "");
    c.state = Client::kStarting;  // never reused; reaped on exit
    StartWorkers(1);
    return;
  }
  clients_.MakeIdle(c);  // (first in line: a warm worker first)
  ahead_.MoveToIdle();
}

void Raylet::OnWorkerExit(const WorkerPool::Exit& e) {
  std::optional<Client> gone = clients_.Take(e.worker_id);
  if (!gone) return;
  Client& c = *gone;
  lifetime_.ReleaseHolds(ObjectHolds::Process(e.worker_id));  // what it borrowed
  if (c.state == Client::kStarting && !c.registered) {
    RAY_LOG_ERROR("worker pid {} exited before registering ({}); see logs/worker-{}.err", e.pid,
                  e.how, Hex(e.worker_id));
  }
  available_.Add(c.held);
  gpus_.Release(c.gpus);
  ready_.Requeue(std::move(c.queued));  // sent ahead, never started: no retry used
  actor_host_.KillOwnedBy(c.owned_actors);
  reporter_.WorkerDied(c, e.how);
  // A worker that was killed left its socket for direct calls behind, its start gate
  // and its slot.
  std::string endpoint = transport::WorkerEndpoint(endpoint_, e.worker_id);
  transport::RemoveSocketFile(endpoint);
  ::unlink(protocol::StartGatePath(endpoint).c_str());
  ::unlink(protocol::RunningTaskPath(options_.session_dir, e.worker_id).c_str());
  RevokeLeasesOf(e.worker_id);
  // Its lease's caller, here or on another node, sends the tasks in flight again.
  const std::string cause = fmt::format("pid {} {}", e.pid, e.how);
  leases_.WorkerGone(c, cause);
  routes_.WorkerGone(c, cause);
  if (c.state == Client::kActor) {
    actor_host_.Died(c.actor_id, fmt::format("the actor's worker (pid {}) died: {}", e.pid, e.how));
    return;
  }
  if (!c.running) return;
  TaskSpec t = std::move(*c.running);
  if (protocol::TakeRetry(t)) {
    RAY_LOG_WARN("worker pid {} died ({}) running {}; retrying ({} retries left)", e.pid, e.how,
                 t.function, t.max_retries);
    OnArgsReady(std::move(t));
    return;
  }
  reporter_.Record(c, t, gcs::kTaskFailed, c.dispatched_ms, clock_.NowMillis());
  FailTask(t, ri::kWorkerCrashed, "WorkerCrashedError",
           fmt::format("the worker running task {} died unexpectedly ({}, pid {}) and no "
                       "retries are left",
                       t.function, e.how, e.pid));
}

// ---------------------------------------------------------------------------
// Leases.

void Raylet::HandleLeaseWanted(Client& c, std::string_view body) {
  auto msg = DecodeFrom<protocol::LeaseRequest>(c.peer, body, "LeaseRequest");
  if (!msg || !LocalLeases::Valid(c.peer, *msg, "a lease wanted")) return;
  ResourceSet need = scheduler::LeaseShapeOf(msg->resources);
  if (!placement_.FitsHere(need)) return;  // (leases on other nodes are asked for, not offered)
  leases_.Want(c.peer, *msg, need);
}

void Raylet::RevokeLeasesOf(const std::string& caller) {
  leases_.CallerGone(caller);
  routes_.CallerGone(caller);
}

}  // namespace ray::raylet
