// The actors this node hosts or places: their calls, deaths and restarts, kills,
// records in the GCS, and the callers that call them directly.

#include "runtime/raylet/raylet_impl.h"

namespace ray::raylet {

void Raylet::SubmitActorTask(TaskSpec t) {
  const ActorId actor = ActorId::FromBinary(t.actor_id);
  Actor* a = actors_.Find(actor);
  if (!a && MultiNode()) {
    // A handle passed from another node: the GCS knows where the actor lives.
    auto node = gcs_.ActorNode(t.actor_id);
    if (node.status().code() == StatusCode::kUnavailable) {
      gcs_backlog_.DeferActorTask(std::move(t));  // asked again when it is back
      return;
    }
    if (node.ok() && !node->empty() && *node != node_id_.Binary()) {
      a = &actors_.Entry(actor);
      a->remote_node = *node;
      a->state = Actor::kAlive;
    }
  }
  if (a && !a->remote_node.empty() && a->state != Actor::kDead) {
    Forward(std::move(t), a->remote_node);
    return;
  }
  if (!a || a->state == Actor::kDead) {
    std::string cause = a ? a->death_cause : "no such actor on this node";
    FailTask(t, ri::kActorDied, "ActorDiedError",
             fmt::format("actor method {} cannot run: {}", t.function, cause));
    return;
  }
  if (t.max_retries < -1) t.max_retries = a->creation.max_retries;  // the actor's
  a->queue.push_back(std::move(t));
  PumpActor(*a);
}

void Raylet::OnActorTaskDone(Client& w, const protocol::TaskDone& done) {
  Actor* a = actors_.Find(w.actor_id);
  if (!a) return;
  Actor& actor = *a;
  if (actor.state != Actor::kAlive) {  // the creation task finished
    bool failed = !done.returns.empty() &&
                  done.returns[0].state == static_cast<uint8_t>(ObjectState::kError);
    w.running.reset();
    if (failed) {
      const StoredObject* o = objects_.Find(done.returns[0].id);
      std::string why = o ? ri::Unpack<ri::ErrorInfo>(o->data.data(), o->data.size()).message : "";
      OnActorDied(w.actor_id, "the actor's constructor failed: " + why);
      pool_->Kill(w.peer);
      w.state = Client::kStarting;  // never reused; its exit is not the actor's death again
      return;
    }
    actor.state = Actor::kAlive;
    RecordActor(w.actor_id, actor);
    PumpActor(actor);
    return;
  }
  // (A concurrent actor's calls may end out of order.)
  auto call = std::find_if(actor.inflight.begin(), actor.inflight.end(),
                           [&](const TaskSpec& t) { return t.task_id == done.task_id; });
  if (call != actor.inflight.end()) actor.inflight.erase(call);
}

void Raylet::PumpActor(Actor& a) {
  if (a.state != Actor::kAlive || a.head_waiter) return;
  Client* w = clients_.Find(a.worker);
  if (!w) return;
  while (!a.queue.empty()) {
    TaskSpec& head = a.queue.front();
    auto waiter = std::make_shared<Waiter>();
    waiter->kind = Waiter::kTask;
    for (const auto& arg : head.args) {
      if (arg.is_ref && !Ready(ObjectId::FromBinary(arg.data))) {
        waiter->ids.push_back(ObjectId::FromBinary(arg.data));
      }
    }
    if (!waiter->ids.empty()) {
      // Later methods wait behind this one, keeping submission order.
      waiter->task.kind = ri::kActorTask;
      waiter->task.actor_id = head.actor_id;
      a.head_waiter = waiter;
      reads_.Await(waiter);
      return;
    }
    SendExecute(*w, head);
    a.inflight.push_back(std::move(head));
    a.queue.pop_front();
  }
}

void Raylet::OnActorDied(const ActorId& actor_id, const std::string& cause) {
  Actor* found = actors_.Find(actor_id);
  if (!found) return;
  Actor& a = *found;
  if (a.state == Actor::kDead) return;  // e.g. its constructor failed, then its worker went
  NotifyDirectCallers(actor_id, a, cause);
  // Calls that were running or sent run again on the restarted actor while they have
  // retries left; the others fail.
  // (The calls fail once the actor's state says it restarts or died: a failed call's
  // result may be an argument of a call queued on it.)
  const bool restart = !JobOver(a.creation) && a.MayRestart();
  Actor::Lost lost = a.Die(restart, cause);
  for (const auto& t : lost.running) {
    FailTask(t, ri::kActorDied, "ActorDiedError",
             fmt::format("actor method {} did not finish: {}", t.function, cause));
  }
  if (restart) {
    RAY_LOG_WARN("restarting actor {} ({} of {}): {}", actor_id.Hex(), a.restarts,
                 a.creation.max_restarts, cause);
    OnArgsReady(a.creation);
    return;
  }
  lifetime_.ReleaseHolds(ObjectHolds::Task(CreationTaskOf(actor_id)));  // its constructor's arguments
  for (const auto& t : lost.queued) {
    FailTask(t, ri::kActorDied, "ActorDiedError",
             fmt::format("actor method {} cannot run: {}", t.function, cause));
  }
  RecordActor(actor_id, a);
}

void Raylet::RecordActor(const ActorId& actor_id, const Actor& a) {
  // Recorded DEAD by the node hosting it (named actors free their name), or by the
  // node their name was taken on.
  bool alive = a.state == Actor::kAlive;
  if (!alive && !a.remote_node.empty() && a.creation.actor_name.empty()) return;
  // On a cluster, handles may travel to other nodes, which look the actor up; a name
  // must be free again at once. Nobody looks an unnamed actor up on a single node (the
  // state API aside): its record waits for the next Periodic, with the others.
  gcs_reports_.ActorState(actor_id, alive, MultiNode() || !a.creation.actor_name.empty());
}

void Raylet::NotifyDirectCallers(const ActorId& actor_id, Actor& a, const std::string& cause) {
  for (const std::string& caller : a.direct_callers) {
    SendMsg(caller, MessageType::kActorGone, 0, protocol::ActorGone{actor_id, cause});
  }
  a.direct_callers.clear();
  for (const auto& [node, caller] : a.remote_callers) {
    peers_->Tell(node, MessageType::kPeerActorGone,
                 protocol::PeerActorGone{actor_id, caller, cause});
  }
  a.remote_callers.clear();
}

void Raylet::KillActorsOwnedBy(const std::vector<ActorId>& owned) {
  for (const auto& id : owned) {
    if (actors_.Gone(id)) continue;
    if (actors_.Find(id)->creation.detached) continue;  // outlives its creator
    RAY_LOG_INFO("actor {} dies with the worker that created it", id.Hex());
    KillActor(id);  // (on its node, if it lives on another)
  }
}

void Raylet::OnActorUnreferenced(const ActorId& actor_id) {
  Actor* a = actors_.Find(actor_id);
  // (Its handles are counted here, its home, wherever it runs.)
  if (!a || a->creation.task_id != CreationTaskOf(actor_id) || a->state == Actor::kDead || a->killed ||
      OutlivesItsHandles(*a)) {
    return;
  }
  RAY_LOG_INFO("actor {} dies: all references to it were removed", actor_id.Hex());
  KillActor(actor_id, /*no_restart=*/true, "all references to the actor were removed");
}

void Raylet::KillActor(const ActorId& actor_id, bool no_restart, const std::string& cause) {
  Actor* found = actors_.Find(actor_id);
  std::string host = found ? found->remote_node : "";
  if (!found && MultiNode()) {
    // A handle from elsewhere (passed along, or looked up by name): the GCS knows.
    auto node = gcs_.ActorNode(actor_id.Binary());
    if (!node.ok()) {
      RAY_LOG_WARN("cannot kill actor {}: where it lives is unknown: {}", actor_id.Hex(),
                   node.status().message());
      return;
    }
    host = *node;
  }
  if (!host.empty() && host != node_id_.Binary()) {
    if (found && found->state == Actor::kDead) return;
    RAY_LOG_INFO("asking node {} to kill actor {}", Hex(host), actor_id.Hex());
    // Callers here that call it directly hear of a kill for good now (a call made
    // after Kill() returns goes through the raylets); its node tells the others, and
    // everyone of a restart.
    if (found && no_restart) NotifyDirectCallers(actor_id, *found, "the actor was killed");
    peers_->KillActor(host, protocol::ActorKill{actor_id, no_restart});
    return;
  }
  if (actors_.Gone(actor_id)) return;
  Actor& a = *actors_.Find(actor_id);
  if (!no_restart) {
    // As if its worker died: it restarts if it may (calls in flight as for a crash).
    if (!a.worker.empty()) pool_->Kill(a.worker);
    return;
  }
  a.creation.max_restarts = a.restarts;  // no restart after a kill
  a.killed = true;
  if (!cause.empty()) a.death_cause = cause;
  // Direct callers hear it now, before the worker is gone: a call made after Kill()
  // returns goes through the raylet, and fails.
  NotifyDirectCallers(actor_id, a, cause.empty() ? "the actor was killed" : cause);
  if (!a.worker.empty()) {
    pool_->Kill(a.worker);  // OnWorkerExit reports the death
    return;
  }
  // Not placed (yet, or again): drop the queued creation task. One still waiting for
  // its arguments is dropped by OnArgsReady.
  ready_.EraseIf([&](const TaskSpec& t) {
    return t.kind == ri::kActorCreation && t.task_id == CreationTaskOf(actor_id);
  });
  OnActorDied(actor_id, cause.empty() ? "the actor was killed before it started" : cause);
}

}  // namespace ray::raylet
