#include "runtime/api/task_submitter.h"

#include <algorithm>

#include <fmt/format.h>

#include "runtime/api/runtime_env.h"
#include "runtime/api/runtime_env_ship.h"
#include "runtime/api/task_spec_rules.h"
#include "runtime/base/clock.h"
#include "runtime/base/logging.h"
#include "runtime/transport/curve.h"

namespace ray::core {

using protocol::MessageType;
using protocol::ObjectPayload;
using protocol::ObjectState;
namespace ri = ray::internal;

namespace {
// Tasks that may wait on one lease (beyond, they go through the raylet, which queues
// them without holding a worker), when their function's tasks are short
// (TaskDurations).
constexpr size_t kMaxLeaseQueue = 1024;
// How long after the raylet had no worker to lease the caller asks again.
constexpr int64_t kLeaseRetryMs = 10;
// How long after telling the raylet a lease is wanted the caller tells it again, if no
// offer came meanwhile.
constexpr int64_t kLeaseWantedAgainMs = 1000;
// A lease idle this long may have been returned by its worker (which returns it after
// twice this): read what came before using it.
constexpr int64_t kLeaseMaybeReturnedMs = 5;
// A direct route to an actor is used at most this long after the raylet's frames were
// last read: a worker that died since is known before a call is sent to it.
constexpr int64_t kRouteFreshMs = 1;
}  // namespace

TaskSubmitter::TaskSubmitter(RayletConnection* raylet, ObjectClient* objects,
                             ReferenceCounter* refs)
    : raylet_(raylet),
      objects_(objects),
      refs_(refs),
      node_(NodeId::FromBinary(raylet->node().node_id)) {
  raylet_->OnMessage<protocol::ActorGone>(
      MessageType::kActorGone, "ActorGone",
      [this](protocol::ActorGone gone) { OnActorGone(gone); });
  raylet_->OnMessage<protocol::LeaseGone>(
      MessageType::kLeaseGone, "LeaseGone",
      [this](protocol::LeaseGone gone) { OnLeaseGone(gone); });
  raylet_->OnMessage<protocol::LeaseOffer>(
      MessageType::kLeaseOffered, "LeaseOffer",
      [this](protocol::LeaseOffer offer) { OnLeaseOffered(offer); });
  raylet_->AddPollSource(
      {[this](std::vector<zmq::pollitem_t>& items) {
         polled_peers_.clear();
         for (auto& [endpoint, peer] : peers_) {
           if (!peer->dealer) continue;
           items.push_back({peer->dealer->socket().handle(), 0, ZMQ_POLLIN, 0});
           polled_peers_.push_back(peer.get());
         }
       },
       [this](const zmq::pollitem_t* items, size_t n) {
         for (size_t i = 0; i < n; ++i) {
           // (its dealer may go meanwhile: the worker died)
           if (items[i].revents & ZMQ_POLLIN) DrainPeer(*polled_peers_[i]);
         }
       }});
}

Result<std::vector<ObjectId>> TaskSubmitter::Submit(const std::string& plugin,
                                                    std::string_view request) {
  auto req = protocol::DecodeBody<ri::TaskRequest>(request, "TaskRequest");
  if (!req.ok()) return req.status();
  protocol::TaskSpec spec;
  static_cast<ri::TaskRequest&>(spec) = std::move(req).value();  // the spec embeds it
  // (Checked before anything is put or registered for it.)
  const bool own_env = HasOwnRuntimeEnv(spec);
  RAY_RETURN_IF_ERROR(CompleteSpec(spec, inherited_));
  const TaskId task = NewTaskId(job_, node_);
  spec.task_id = task;
  spec.job_id = job_;
  spec.plugin = plugin;
  if (own_env) {
    std::string what = fmt::format("{} {}", spec.kind == ri::kActorCreation ? "actor" : "task",
                                   spec.function);
    RAY_ASSIGN_OR_RETURN(RuntimeEnv own, Shipped(spec.runtime_env, what));
    RAY_ASSIGN_OR_RETURN(RuntimeEnv parent, ParseRuntimeEnv(inherited_.runtime_env, "the job"));
    spec.runtime_env = Canonical(Merge(parent, own));
  }
  for (const auto& arg : spec.args) {
    if (arg.is_ref) refs_->RefEscaped(ObjectId::FromBinary(arg.data));
  }
  // What the task holds while pending: refs passed (as arguments or inside them), and
  // an actor call's actor (its handle), so that the actor lives to run it.
  std::vector<ObjectId> contained = refs_->TakeContained();
  if (spec.kind == ri::kActorTask && spec.actor_id.size() == TaskId::kSize) {
    contained.push_back(ObjectId::ForTaskReturn(TaskId::FromBinary(spec.actor_id), 1));
  }
  spec.contained_refs = contained;
  // Large values travel through the object store, not inside the task (their ids
  // derive from a task id of their own: no one else puts under it).
  std::optional<TaskId> args_task;
  uint32_t arg_puts = 0;
  for (auto& arg : spec.args) {
    if (!arg.is_ref && arg.data.size() >= protocol::kInlineObjectLimit) {
      if (!args_task) args_task = NewTaskId(job_, node_);
      auto put = objects_->Put(ObjectId::ForPut(*args_task, ++arg_puts), {arg.data});
      if (!put.ok()) refs_->CarrierSent(contained);
      RAY_ASSIGN_OR_RETURN(ObjectId id, std::move(put));
      arg = ri::TaskArg{true, id.Binary()};
    }
  }
  objects_->PromoteEscaped(/*wait_in_flight=*/false);
  if (spec.kind == ri::kActorCreation && !spec.actor_name.empty()) {
    auto named = raylet_->Call(
        "register_actor_name",
        ri::Pack(std::make_tuple(spec.actor_name, spec.task_id, spec.ray_namespace)));
    if (!named.ok()) refs_->CarrierSent(contained);
    RAY_RETURN_IF_ERROR(named.status());
  }
  if (spec.kind == ri::kActorCreation) {
    // Not running yet: no use asking for its worker before the next blocking call.
    DirectActor& actor = direct_actors_[ActorOfCreation(spec.task_id)];
    actor.route = DirectActor::kRaylet;
    actor.asked_epoch = objects_->block_epoch();
  }
  std::vector<ObjectId> ids;
  for (uint32_t i = 1; i <= spec.num_returns; ++i) ids.push_back(ObjectId::ForTaskReturn(task, i));
  // (Leased workers serve no runtime environment: tasks with one go through the
  // raylet, which keys workers by it.)
  const ActorId actor_id = ActorId::FromBinary(spec.actor_id);  // (nil unless an actor call)
  DirectPeer* peer = spec.kind == ri::kActorTask ? DirectRoute(actor_id)
                     : spec.runtime_env.empty()  ? LeaseFor(spec)
                                                 : nullptr;
  if (peer && spec.kind == ri::kActorTask && spec.max_retries < -1) {
    spec.max_retries = direct_actors_[actor_id].max_task_retries;
  }
  if (peer) {
    for (const ObjectId& id : ids) refs_->Own(id, /*direct=*/true);
    // The caller holds what the call holds until it is answered (the worker tells
    // the raylet of any ref it keeps before it answers).
    for (const ObjectId& id : contained) refs_->HoldForCall(id);
    refs_->CarrierSent(contained);
    SubmitDirect(*peer, std::move(spec));
    return ids;
  }
  raylet_->SendWithPiggyback(protocol::Encode(MessageType::kSubmitTask, 0, spec), /*all=*/false);
  refs_->CarrierSent(contained);
  for (const ObjectId& id : ids) refs_->Own(id);
  return ids;
}

Result<RuntimeEnv> TaskSubmitter::Shipped(const std::string& runtime_env, const std::string& what) {
  if (auto it = shipped_envs_.find(runtime_env); it != shipped_envs_.end()) return it->second;
  RAY_ASSIGN_OR_RETURN(RuntimeEnv asked, ParseRuntimeEnv(runtime_env, what));
  auto put = [&](const std::string& hash, const std::string& name, const std::string& bytes) {
    return raylet_->Call("ship_blob", ri::Pack(std::make_tuple(hash, name, bytes))).status();
  };
  auto shipped = ShipRuntimeEnv(asked, put);
  if (!shipped.ok()) return Status(shipped.status().code(), what + ": " + shipped.status().message());
  return shipped_envs_[runtime_env] = std::move(shipped).value();
}

TaskSubmitter::DirectPeer& TaskSubmitter::PeerAt(const std::string& endpoint, bool encrypted) {
  std::unique_ptr<DirectPeer>& peer = peers_[endpoint];
  if (!peer || !peer->dealer) {
    // Named as on the raylet's socket: a worker knows its lease holder by that name.
    auto dealer = std::make_unique<transport::Dealer>(raylet_->identity());
    Status curve = encrypted ? transport::MakeCurveClient(dealer->socket(), endpoint) : Status::Ok();
    Status connected = curve.ok() ? dealer->Connect(endpoint) : curve;
    if (!connected.ok()) {
      RAY_LOG_WARN("cannot connect to {}: {}", endpoint, connected.message());
      dealer.reset();  // (a send to it would wait for ever): as if the worker were gone
    }
    if (!peer) peer = std::make_unique<DirectPeer>();
    peer->endpoint = endpoint;
    peer->other_node = encrypted;
    peer->dealer = std::move(dealer);
  }
  return *peer;
}

TaskSubmitter::DirectPeer* TaskSubmitter::DirectRoute(const ActorId& actor_id) {
  DirectActor& actor = direct_actors_[actor_id];
  if (actor.route == DirectActor::kDirect && MonoMillis() - routes_checked_ms_ >= kRouteFreshMs) {
    // Its worker may have died since we last heard from the raylet (ActorGone).
    if (!raylet_->Pump(0)) return nullptr;
    routes_checked_ms_ = MonoMillis();
  }
  if (actor.route == DirectActor::kDirect) return actor.peer;
  if (actor.route == DirectActor::kRaylet && actor.asked_epoch == objects_->block_epoch()) {
    return nullptr;
  }
  actor.asked_epoch = objects_->block_epoch();
  actor.route = DirectActor::kRaylet;
  using protocol::ActorRouteReply;
  auto reply = raylet_->Ask<ActorRouteReply>(MessageType::kActorRoute,
                                             protocol::ActorRouteRequest{actor_id},
                                             MessageType::kActorRouteReply);
  if (!reply.ok() || reply->route != ActorRouteReply::kDirect || reply->endpoint.empty()) {
    return nullptr;
  }
  actor.peer = &PeerAt(reply->endpoint, reply->encrypted);
  if (!actor.peer->dealer) return nullptr;  // (cannot connect: through the raylet)
  actor.route = DirectActor::kDirect;
  actor.max_task_retries = reply->max_task_retries;
  routes_checked_ms_ = MonoMillis();
  return actor.peer;
}

TaskSubmitter::DirectPeer* TaskSubmitter::LeaseFor(const protocol::TaskSpec& spec) {
  if (spec.kind != ri::kNormalTask || spec.max_calls != 0 || spec.resources.count("GPU") ||
      !spec.placement_group_id.empty()) {
    // GPU ids and max_calls are per task: the raylet hands those out; a bundle's
    // resources may be on another node, and go when the group is removed.
    return nullptr;
  }
  for (const auto& arg : spec.args) {
    if (arg.is_ref && !objects_->Holds(ObjectId::FromBinary(arg.data))) {
      return nullptr;  // the raylet waits for it
    }
  }
  std::string shape = ri::Pack(spec.resources);
  LeasePool& pool = leases_[shape];
  auto least_busy = [&] {
    DirectPeer* least = nullptr;
    for (DirectPeer* w : pool.workers) {
      if (!least || w->inflight.size() < least->inflight.size()) least = w;
    }
    return least;
  };
  DirectPeer* least = least_busy();
  if (least && least->inflight.empty() &&
      MonoMillis() - least->idle_since_ms >= kLeaseMaybeReturnedMs) {
    if (!raylet_->Pump(0)) return nullptr;
    least = least_busy();
  }
  if (least && least->inflight.empty()) return least;
  if (pool.denied_ms < 0 || MonoMillis() - pool.denied_ms >= kLeaseRetryMs) {
    using protocol::LeaseReply;
    auto reply = raylet_->Ask<LeaseReply>(MessageType::kLeaseWorker,
                                          protocol::LeaseRequest{spec.resources, spec.job_id},
                                          MessageType::kLeaseReply);
    if (reply.ok() && reply->outcome == LeaseReply::kGranted && !reply->endpoint.empty()) {
      DirectPeer& w = AdoptLease(pool, shape, reply->endpoint, reply->gate, reply->encrypted);
      if (w.dealer) return &w;
      EndLease(w);  // (cannot connect: its worker returns the lease once idle)
    }
    pool.denied_ms = MonoMillis();
    pool.busy = reply.ok() && reply->outcome == LeaseReply::kBusy;
  }
  // Every resource is taken: short tasks queue behind ours on our leases (their
  // workers start the next without a round trip; when one of them idles, the calls
  // not started move to it); long ones wait in the raylet's queue for whichever
  // worker frees first.
  // (Calls queue on a worker on another node too, though they cannot be taken back:
  // see QueuesCalls.)
  bool short_tasks = pool.durations.Short(spec.function);
  if (pool.busy && short_tasks && least && QueuesCalls(*least) &&
      least->inflight.size() < kMaxLeaseQueue) {
    // (Offers are local: a node never offers a lease on another node.)
    if (!least->other_node) WantLease(pool, spec);  // (may handle frames meanwhile: an offer moves calls)
    least = least_busy();
    if (least && least->inflight.size() < kMaxLeaseQueue) return least;
  }
  return nullptr;
}

TaskSubmitter::DirectPeer& TaskSubmitter::AdoptLease(LeasePool& pool, const std::string& shape,
                                                     const std::string& endpoint,
                                                     const protocol::LeaseGate& gate,
                                                     bool other_node) {
  DirectPeer& w = PeerAt(endpoint, other_node);
  // The raylet lends it again: a lease of ours before is over, though its worker's word
  // (LeaseReturned) may not be read yet.
  EndLease(w);
  if (!gate.valid) {
    w.gate.reset();  // no calls queue on it (unless it is on another node: QueuesCalls)
  } else if (!w.gate) {
    w.gate = protocol::StartGate::Open(protocol::StartGatePath(w.endpoint));
  }
  // (As read by the raylet: by the time the reply is read here, the worker may have
  // ended the lease and started tasks of the raylet's.)
  w.gate_base = gate.starts;
  w.gate_lease = gate.lease;
  w.lease_seq = next_seq_;
  w.lease = shape;
  w.idle_since_ms = MonoMillis();
  pool.workers.push_back(&w);
  pool.denied_ms = -1;
  return w;
}

void TaskSubmitter::WantLease(LeasePool& pool, const protocol::TaskSpec& spec) {
  if (pool.wanted_ms >= 0 && MonoMillis() - pool.wanted_ms < kLeaseWantedAgainMs) return;
  pool.wanted_ms = MonoMillis();
  raylet_->Send(protocol::Encode(MessageType::kLeaseWanted, 0,
                                 protocol::LeaseRequest{spec.resources, spec.job_id}));
}

void TaskSubmitter::OnLeaseOffered(const protocol::LeaseOffer& offer) {
  if (offer.endpoint.empty()) return;
  std::string shape = ri::Pack(offer.resources);
  LeasePool& pool = leases_[shape];
  pool.wanted_ms = -1;
  // Calls queued behind a busy worker move to it; if none wait any more, it serves the
  // next call (or its worker returns it once idle).
  MoveQueuedTo(AdoptLease(pool, shape, offer.endpoint, offer.gate));
}

void TaskSubmitter::SubmitDirect(DirectPeer& peer, protocol::TaskSpec spec) {
  protocol::ExecuteTask task;
  task.resolved = CarriedArgs(spec, peer);
  DirectCall& call = peer.inflight[spec.task_id];
  call.function = spec.function;
  call.contained = spec.contained_refs;
  for (uint32_t i = 1; i <= spec.num_returns; ++i) {
    call.returns.push_back(ObjectId::ForTaskReturn(spec.task_id, i));
    objects_->direct().Expect(call.returns.back());
  }
  spec.caller = raylet_->identity();
  call.seq = ++next_seq_;
  if (spec.kind == ri::kNormalTask || spec.max_retries != 0) call.spec = spec;
  task.spec = std::move(spec);
  task.lease = LeaseTag(peer);
  if (peer.other_node) task.caller_node = node_.Binary();
  peer.dealer->Send(protocol::Encode(MessageType::kExecuteTask, 0, task));
  // Frees gather here as for raylet submissions (fire-and-forget loops stay bounded).
  raylet_->SendPiggyback();
}

std::vector<ObjectPayload> TaskSubmitter::CarriedArgs(const protocol::TaskSpec& spec,
                                                      const DirectPeer& peer) const {
  std::vector<ObjectPayload> carried;
  for (const auto& arg : spec.args) {
    if (!arg.is_ref) continue;
    ObjectPayload p = objects_->ArgPayload(ObjectId::FromBinary(arg.data));
    if (peer.other_node && p.state == static_cast<uint8_t>(ObjectState::kShared)) {
      // (A segment of this node's store: the worker's node pulls it.)
      p = ObjectPayload{};
      p.id = ObjectId::FromBinary(arg.data);
    }
    carried.push_back(std::move(p));
  }
  return carried;
}

void TaskSubmitter::OnPeerFrame(DirectPeer& peer, std::string_view frame) {
  auto env = protocol::DecodeEnvelope(frame);
  if (!env.ok()) {
    RAY_LOG_WARN("dropped a frame from worker {}: {}", peer.endpoint, env.status().message());
    return;
  }
  switch (env->type) {
    case MessageType::kTaskDone: {
      auto done = protocol::DecodeBody<protocol::TaskDone>(env->body, "TaskDone");
      if (done.ok()) return OnDirectDone(peer, std::move(done).value());
      RAY_LOG_WARN("dropped an answer from worker {}: {}", peer.endpoint, done.status().message());
      return;
    }
    case MessageType::kTaskBounced: {  // body: the task id, raw
      auto call = peer.inflight.find(TaskId::FromBinary(env->body));
      if (call == peer.inflight.end()) {
        RAY_LOG_WARN("worker {} bounced a task not in flight", peer.endpoint);
        return;
      }
      DirectCall bounced = std::move(call->second);
      peer.inflight.erase(call);
      // It ran no task of ours: the lease is over (unless the call was an earlier
      // lease's, which it got after that lease ended).
      if (bounced.seq > peer.lease_seq) EndLease(peer);
      Resubmit(std::move(bounced));
      return;
    }
    case MessageType::kLeaseReturned:
      EndLease(peer);
      return;
    default:
      RAY_LOG_WARN("dropped message type {} from worker {}", static_cast<int>(env->type),
                   peer.endpoint);
  }
}

void TaskSubmitter::OnDirectDone(DirectPeer& peer, protocol::TaskDone done) {
  auto call = peer.inflight.find(done.task_id);
  if (call == peer.inflight.end()) {
    RAY_LOG_WARN("dropped an answer from worker {}: not a call in flight", peer.endpoint);
    return;
  }
  std::vector<ObjectId> returns = std::move(call->second.returns);
  if (!peer.lease.empty() && call->second.seq > peer.lease_seq) ++peer.gate_base;
  std::optional<protocol::TaskSpec> spec = std::move(call->second.spec);
  const std::string function = call->second.function;
  Settled(call->second);
  peer.inflight.erase(call);
  if (peer.inflight.empty()) peer.idle_since_ms = MonoMillis();
  if (!peer.lease.empty() && done.run_us >= 0) {
    leases_[peer.lease].durations.Record(function, static_cast<double>(done.run_us) / 1000.0);
  }
  DirectResults& results = objects_->direct();
  bool left_elsewhere = false;
  for (ObjectPayload& p : done.returns) {
    if (std::find(returns.begin(), returns.end(), p.id) == returns.end()) {
      RAY_LOG_WARN("dropped a result from worker {} that its call does not return", peer.endpoint);
      continue;
    }
    const ObjectId id = p.id;
    bool shared = p.state == static_cast<uint8_t>(ObjectState::kShared);
    if (!results.Settle(id)) {  // freed while in flight
      if (shared) object_store::UnlinkSegment(p.shm_name);
      continue;
    }
    if (p.state == static_cast<uint8_t>(ObjectState::kMissing)) {
      refs_->ClearDirect({id});  // the worker put it in the raylet (it holds refs)
      if (peer.other_node) left_elsewhere = true;
      continue;
    }
    if (shared) {
      // Large results live in the raylet's store, like any task's.
      protocol::PutRequest put{std::move(p), {}};
      raylet_->Send(protocol::Encode(MessageType::kPutObject, 0, put));
      continue;
    }
    results.Store(id, ObjectCache::Entry{static_cast<ObjectState>(p.state),
                                         std::make_shared<const std::string>(std::move(p.data))});
  }
  if (left_elsewhere) {
    // Our raylet learns where (before any Get of ours asks it for them).
    if (!spec) {  // (an actor call: where its results are is all that is told)
      spec.emplace();
      spec->task_id = done.task_id;
      spec->kind = ri::kActorTask;
      spec->num_returns = static_cast<uint32_t>(returns.size());
    }
    raylet_->Send(protocol::Encode(MessageType::kRanElsewhere, 0,
                                   protocol::RanElsewhere{peer.endpoint, std::move(*spec)}));
  }
  // A result missing from the answer is an error, not a wait forever.
  FailResults(returns, ri::ErrorInfo{ri::kSystem, "ray::Internal",
                                     "the worker's answer lacked this result", "", ""});
  if (!peer.lease.empty() && peer.inflight.empty()) MoveQueuedTo(peer);
}

void TaskSubmitter::MoveQueuedTo(DirectPeer& idle) {
  auto pool = leases_.find(idle.lease);
  if (pool == leases_.end()) return;
  DirectPeer* busiest = nullptr;
  for (DirectPeer* w : pool->second.workers) {
    if (w == &idle || !w->gate || !w->dealer || w->inflight.size() < 2) continue;
    if (!busiest || w->inflight.size() > busiest->inflight.size()) busiest = w;
  }
  if (!busiest) return;
  for (DirectCall& call : TakeBack(*busiest)) Resend(idle, std::move(call));
}

std::vector<TaskSubmitter::DirectCall> TaskSubmitter::TakeBack(DirectPeer& peer) {
  // The lease's calls in flight are the worker's starts after gate_base, in the
  // order sent (earlier calls, of a lease before, all started).
  std::vector<std::pair<TaskId, DirectCall>> calls;
  for (auto it = peer.inflight.begin(); it != peer.inflight.end();) {
    if (it->second.seq <= peer.lease_seq) {
      ++it;
      continue;
    }
    calls.emplace_back(it->first, std::move(it->second));
    it = peer.inflight.erase(it);
  }
  std::sort(calls.begin(), calls.end(),
            [](const auto& a, const auto& b) { return a.second.seq < b.second.seq; });
  // (A worker that ended our lease meanwhile runs what it has; the gate is not ours.)
  std::optional<uint64_t> closed = peer.gate->Close(peer.gate_lease);
  uint64_t starts = closed.value_or(0);
  size_t started = closed && starts >= peer.gate_base ? starts - peer.gate_base : calls.size();
  started = std::min(started, calls.size());
  std::vector<DirectCall> taken;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (i < started) {
      peer.inflight.emplace(calls[i].first, std::move(calls[i].second));
    } else {
      taken.push_back(std::move(calls[i].second));
    }
  }
  // The marker: the worker drops what came before it and did not start, and reopens.
  if (closed) peer.dealer->Send(protocol::Encode(MessageType::kTakenBack, 0, std::string()));
  EndLease(peer);
  return taken;
}

uint64_t TaskSubmitter::LeaseTag(const DirectPeer& peer) {
  return !peer.lease.empty() && peer.gate ? peer.gate_lease + 1 : 0;
}

void TaskSubmitter::Resend(DirectPeer& peer, DirectCall call) {
  protocol::ExecuteTask task;
  task.resolved = CarriedArgs(*call.spec, peer);
  task.spec = *call.spec;
  task.lease = LeaseTag(peer);
  if (peer.other_node) task.caller_node = node_.Binary();
  call.seq = ++next_seq_;
  const TaskId id = call.spec->task_id;
  peer.inflight.emplace(id, std::move(call));
  peer.dealer->Send(protocol::Encode(MessageType::kExecuteTask, 0, task));
}

void TaskSubmitter::FailResults(const std::vector<ObjectId>& returns, const ri::ErrorInfo& e) {
  objects_->direct().Fail(returns, e);
  objects_->PromoteArrived();
}

void TaskSubmitter::DrainPeer(DirectPeer& peer) {
  while (peer.dealer) {
    auto frame = peer.dealer->Recv(0);
    if (!frame) break;
    OnPeerFrame(peer, *frame);
  }
  objects_->PromoteArrived();
}

void TaskSubmitter::OnActorGone(const protocol::ActorGone& gone) {
  auto it = direct_actors_.find(gone.actor_id);
  if (it == direct_actors_.end() || it->second.route != DirectActor::kDirect) return;
  DirectActor& actor = it->second;
  DirectPeer& peer = *actor.peer;
  actor.route = DirectActor::kRaylet;
  actor.asked_epoch = objects_->block_epoch();
  actor.peer = nullptr;
  // (Its worker may be one we leased before, whose return we have not read yet: the
  // peer is in a lease pool too, and must leave it before it loses its socket.)
  EndLease(peer);
  DrainPeer(peer);  // answers the worker sent before it went still count
  // In the order they were sent: calls with retries left go through the raylet, which
  // runs them on the restarted actor (or fails them if it does not restart).
  std::vector<DirectCall> lost;
  for (auto& [task, call] : peer.inflight) lost.push_back(std::move(call));
  peer.inflight.clear();
  peer.dealer.reset();
  std::sort(lost.begin(), lost.end(),
            [](const DirectCall& a, const DirectCall& b) { return a.seq < b.seq; });
  for (DirectCall& call : lost) {
    if (call.spec && protocol::TakeRetry(*call.spec)) {
      Resubmit(std::move(call));
      continue;
    }
    Settled(call);
    FailResults(call.returns,
                ri::ErrorInfo{ri::kActorDied, "ActorDiedError",
                              fmt::format("actor method {} did not finish: {}", call.function,
                                          gone.cause),
                              call.function, ""});
  }
}

void TaskSubmitter::OnLeaseGone(const protocol::LeaseGone& gone) {
  auto it = peers_.find(gone.endpoint);
  if (it == peers_.end()) return;
  DirectPeer& peer = *it->second;
  EndLease(peer);   // (first: no calls move to it)
  DrainPeer(peer);  // answers sent before the worker died still count
  peer.dealer.reset();
  auto lost = std::move(peer.inflight);
  peer.inflight.clear();
  for (auto& [task, call] : lost) {
    if (call.spec && protocol::TakeRetry(*call.spec)) {
      RAY_LOG_WARN("the worker running {} died ({}); retrying ({} retries left)", call.function,
                   gone.cause, call.spec->max_retries);
      Resubmit(std::move(call));
      continue;
    }
    Settled(call);
    FailResults(call.returns,
                ri::ErrorInfo{ri::kWorkerCrashed, "WorkerCrashedError",
                              fmt::format("the worker running task {} died unexpectedly ({}) and "
                                          "no retries are left",
                                          call.function, gone.cause),
                              call.function, ""});
  }
}

void TaskSubmitter::EndLease(DirectPeer& peer) {
  if (peer.lease.empty()) return;
  LeasePool& pool = leases_[peer.lease];
  std::erase(pool.workers, &peer);
  pool.denied_ms = -1;
  peer.lease.clear();
  // Tasks sent after the worker let the lease go come back bounced; any others in
  // flight still complete.
}

void TaskSubmitter::Resubmit(DirectCall call) {
  if (!call.spec) return Settled(call);
  // The raylet has the results from now on, and holds what the task holds (before
  // the caller lets go of it).
  objects_->direct().HandOver(call.returns);
  objects_->PromoteArrived();  // (the raylet makes these now)
  refs_->ClearDirect(call.returns);
  raylet_->SendWithPiggyback(protocol::Encode(MessageType::kSubmitTask, 0, *call.spec),
                             /*all=*/false);
  Settled(call);
}

void TaskSubmitter::Settled(DirectCall& call) {
  for (const ObjectId& id : call.contained) refs_->ReleaseForCall(id);
  call.contained.clear();
}

}  // namespace ray::core
