#include "runtime/raylet/actor_host.h"

#include <fmt/format.h>

#include <algorithm>

#include "runtime/base/hex.h"
#include "runtime/base/logging.h"

namespace ray::raylet {

using protocol::MessageType;
using protocol::ObjectState;
namespace ri = ray::internal;

void ActorHost::Submit(TaskSpec t) {
  const ActorId actor = ActorId::FromBinary(t.actor_id);
  Actor* a = d_.actors.Find(actor);
  if (!a && d_.placement.MultiNode()) {
    // A handle passed from another node: the GCS knows where the actor lives.
    auto node = d_.gcs.ActorNode(t.actor_id);
    if (node.status().code() == StatusCode::kUnavailable) {
      d_.gcs_backlog.DeferActorTask(std::move(t));  // asked again when it is back
      return;
    }
    if (node.ok() && !node->empty() && *node != d_.self) {
      a = &d_.actors.Entry(actor);
      a->remote_node = *node;
      a->state = Actor::kAlive;
    }
  }
  if (a && !a->remote_node.empty() && a->state != Actor::kDead) {
    d_.forward(std::move(t), a->remote_node);
    return;
  }
  if (!a || a->state == Actor::kDead) {
    std::string cause = a ? a->death_cause : "no such actor on this node";
    d_.fail(t, ri::kActorDied, "ActorDiedError",
            fmt::format("actor method {} cannot run: {}", t.function, cause));
    return;
  }
  if (t.max_retries < -1) t.max_retries = a->creation.max_retries;  // the actor's
  a->queue.push_back(std::move(t));
  Pump(*a);
}

void ActorHost::TaskDone(Client& w, const protocol::TaskDone& done) {
  Actor* a = d_.actors.Find(w.actor_id);
  if (!a) return;
  Actor& actor = *a;
  if (actor.state != Actor::kAlive) {  // the creation task finished
    bool failed =
        !done.returns.empty() && done.returns[0].state == static_cast<uint8_t>(ObjectState::kError);
    w.running.reset();
    if (failed) {
      const StoredObject* o = d_.objects.Find(done.returns[0].id);
      std::string why = o ? ri::Unpack<ri::ErrorInfo>(o->data.data(), o->data.size()).message : "";
      Died(w.actor_id, "the actor's constructor failed: " + why);
      d_.kill_worker(w.peer);
      w.state = Client::kStarting;  // never reused; its exit is not the actor's death again
      return;
    }
    actor.state = Actor::kAlive;
    Record(w.actor_id, actor);
    Pump(actor);
    return;
  }
  // (A concurrent actor's calls may end out of order.)
  auto call = std::find_if(actor.inflight.begin(), actor.inflight.end(),
                           [&](const TaskSpec& t) { return t.task_id == done.task_id; });
  if (call != actor.inflight.end()) actor.inflight.erase(call);
}

void ActorHost::ArgumentsReady(const ActorId& id) {
  if (Actor* a = d_.actors.Find(id)) {
    a->head_waiter.reset();
    Pump(*a);
  }
}

void ActorHost::Pump(Actor& a) {
  if (a.state != Actor::kAlive || a.head_waiter) return;
  Client* w = d_.clients.Find(a.worker);
  if (!w) return;
  while (!a.queue.empty()) {
    TaskSpec& head = a.queue.front();
    auto waiter = std::make_shared<Waiter>();
    waiter->kind = Waiter::kTask;
    for (const auto& arg : head.args) {
      if (arg.is_ref && !d_.objects.Ready(ObjectId::FromBinary(arg.data))) {
        waiter->ids.push_back(ObjectId::FromBinary(arg.data));
      }
    }
    if (!waiter->ids.empty()) {
      // Later methods wait behind this one, keeping submission order.
      waiter->task.kind = ri::kActorTask;
      waiter->task.actor_id = head.actor_id;
      a.head_waiter = waiter;
      d_.await(waiter);
      return;
    }
    d_.execute(*w, head);
    a.inflight.push_back(std::move(head));
    a.queue.pop_front();
  }
}

void ActorHost::Died(const ActorId& actor_id, const std::string& cause) {
  Actor* found = d_.actors.Find(actor_id);
  if (!found) return;
  Actor& a = *found;
  if (a.state == Actor::kDead) return;  // e.g. its constructor failed, then its worker went
  TellCallersGone(actor_id, a, cause);
  // Calls that were running or sent run again on the restarted actor while they have
  // retries left; the others fail.
  // (The calls fail once the actor's state says it restarts or died: a failed call's
  // result may be an argument of a call queued on it.)
  const bool restart = !d_.job_over(a.creation) && a.MayRestart();
  Actor::Lost lost = a.Die(restart, cause);
  for (const auto& t : lost.running) {
    d_.fail(t, ri::kActorDied, "ActorDiedError",
            fmt::format("actor method {} did not finish: {}", t.function, cause));
  }
  if (restart) {
    RAY_LOG_WARN("restarting actor {} ({} of {}): {}", actor_id.Hex(), a.restarts,
                 a.creation.max_restarts, cause);
    d_.start(a.creation);
    return;
  }
  d_.release_arguments(CreationTaskOf(actor_id));  // its constructor's arguments
  for (const auto& t : lost.queued) {
    d_.fail(t, ri::kActorDied, "ActorDiedError",
            fmt::format("actor method {} cannot run: {}", t.function, cause));
  }
  Record(actor_id, a);
}

void ActorHost::Record(const ActorId& actor_id, const Actor& a) {
  // Recorded DEAD by the node hosting it (named actors free their name), or by the
  // node their name was taken on.
  bool alive = a.state == Actor::kAlive;
  if (!alive && !a.remote_node.empty() && a.creation.actor_name.empty()) return;
  // On a cluster, handles may travel to other nodes, which look the actor up; a name
  // must be free again at once. Nobody looks an unnamed actor up on a single node (the
  // state API aside): its record waits for the next GcsReports::SendActors, with the others.
  d_.reports.ActorState(actor_id, alive,
                        d_.placement.MultiNode() || !a.creation.actor_name.empty());
}

void ActorHost::TellCallersGone(const ActorId& actor_id, Actor& a, const std::string& cause) {
  for (const std::string& caller : a.direct_callers) {
    d_.outbox.Send(caller, MessageType::kActorGone, 0, protocol::ActorGone{actor_id, cause});
  }
  a.direct_callers.clear();
  for (const auto& [node, caller] : a.remote_callers) {
    d_.tell(node, protocol::Encode(MessageType::kPeerActorGone, 0,
                                   protocol::PeerActorGone{actor_id, caller, cause}));
  }
  a.remote_callers.clear();
}

void ActorHost::KillOwnedBy(const std::vector<ActorId>& owned) {
  for (const auto& id : owned) {
    if (d_.actors.Gone(id)) continue;
    if (d_.actors.Find(id)->creation.detached) continue;  // outlives its creator
    RAY_LOG_INFO("actor {} dies with the worker that created it", id.Hex());
    Kill(id);  // (on its node, if it lives on another)
  }
}

void ActorHost::Unreferenced(const ActorId& actor_id) {
  Actor* a = d_.actors.Find(actor_id);
  // (Its handles are counted here, its home, wherever it runs.)
  if (!a || a->creation.task_id != CreationTaskOf(actor_id) || a->state == Actor::kDead ||
      a->killed || a->creation.detached) {
    return;
  }
  RAY_LOG_INFO("actor {} dies: all references to it were removed", actor_id.Hex());
  Kill(actor_id, /*no_restart=*/true, "all references to the actor were removed");
}

void ActorHost::Kill(const ActorId& actor_id, bool no_restart, const std::string& cause) {
  Actor* found = d_.actors.Find(actor_id);
  std::string host = found ? found->remote_node : "";
  if (!found && d_.placement.MultiNode()) {
    // A handle from elsewhere (passed along, or looked up by name): the GCS knows.
    auto node = d_.gcs.ActorNode(actor_id.Binary());
    if (!node.ok()) {
      RAY_LOG_WARN("cannot kill actor {}: where it lives is unknown: {}", actor_id.Hex(),
                   node.status().message());
      return;
    }
    host = *node;
  }
  if (!host.empty() && host != d_.self) {
    if (found && found->state == Actor::kDead) return;
    RAY_LOG_INFO("asking node {} to kill actor {}", ToHex(host), actor_id.Hex());
    // Callers here that call it directly hear of a kill for good now (a call made
    // after Kill() returns goes through the raylets); its node tells the others, and
    // everyone of a restart.
    if (found && no_restart) TellCallersGone(actor_id, *found, "the actor was killed");
    d_.tell(host, protocol::Encode(MessageType::kKillActor, 0,
                                   protocol::ActorKill{actor_id, no_restart}));
    return;
  }
  if (d_.actors.Gone(actor_id)) return;
  Actor& a = *d_.actors.Find(actor_id);
  if (!no_restart) {
    // As if its worker died: it restarts if it may (calls in flight as for a crash).
    if (!a.worker.empty()) d_.kill_worker(a.worker);
    return;
  }
  a.creation.max_restarts = a.restarts;  // no restart after a kill
  a.killed = true;
  if (!cause.empty()) a.death_cause = cause;
  // Direct callers hear it now, before the worker is gone: a call made after Kill()
  // returns goes through the raylet, and fails.
  TellCallersGone(actor_id, a, cause.empty() ? "the actor was killed" : cause);
  if (!a.worker.empty()) {
    d_.kill_worker(a.worker);  // OnWorkerExit reports the death
    return;
  }
  // Not placed (yet, or again): drop the queued creation task. One still waiting for
  // its arguments is dropped by OnArgsReady.
  d_.drop_queued(CreationTaskOf(actor_id));
  Died(actor_id, cause.empty() ? "the actor was killed before it started" : cause);
}

void ActorHost::NoteOwner(const TaskSpec& creation) {
  Client* owner = d_.clients.Find(creation.caller);
  if (!owner || owner->is_driver) return;
  std::vector<ActorId>& owned = owner->owned_actors;
  if (owned.size() >= 64 && (owned.size() & (owned.size() - 1)) == 0) {  // now and then
    d_.actors.PruneOwned(owned);
  }
  owned.push_back(ActorOfCreation(creation.task_id));  // (placed again: listed twice, harmless)
}

}  // namespace ray::raylet
