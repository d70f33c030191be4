#pragma once
// Submits a process's tasks: through the raylet, or straight to a worker.
//
// Direct calls. Actors: the submitter asks the raylet for an actor's direct endpoint
// before its first call, and again after a blocking Get or Wait while the answer is
// "not now". The raylet says yes only for an actor alive with none of this caller's
// calls still queued or running, so that calls keep their order when the route
// changes. An actor on another node is called on its tcp socket (encrypted), once
// that node says yes too (see protocol::RouteAsk). When the actor's worker goes, the raylet sends ActorGone:
// calls in flight fail (or, with retries left, max_task_retries, go through the raylet
// again, in their order), and later ones go through the raylet (which restarts the
// actor, or fails them). A direct route unchecked for 1 ms is checked against the
// raylet's news before a call uses it.
//
// Normal tasks whose arguments are all here: the submitter asks the raylet to lease
// it an idle worker for the task's resource shape (the worker holds them meanwhile),
// and sends tasks straight to it: to an idle lease, else a new one. When the raylet
// has no resources left for another, short tasks queue on the caller's leases and
// long ones go through the raylet. When one of its leases idles, the calls queued on
// another lease of the shape that did not start move to it (taken back through the
// worker's start gate, serialization/start_gate.h), so no call waits behind a running
// one while a worker it holds is free. A CPU freed elsewhere (another caller's task,
// a task of the raylet) pulls them too: when calls queue on its leases the submitter
// tells the raylet it wants another lease (LeaseWanted), and the raylet offers one
// (LeaseOffered) as soon as it could grant it; the queued calls move to it. The worker returns the lease once it has been idle
// for a while (telling the caller; tasks that cross that on the way are bounced back,
// and go through the raylet). If the worker dies, the raylet sends LeaseGone and the
// tasks in flight go through the raylet, with one retry fewer. A shape this node
// cannot fit is leased on a node that fits it (the raylets broker it: see
// raylet/direct_routes.cc), on the worker's encrypted tcp socket; short calls queue
// there too, but are never taken back (its start gate is on the other host).
//
// Results of direct calls live in the caller (ObjectClient::direct) until their ids
// escape. Not thread-safe: the client's thread.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/api/object_client.h"
#include "runtime/api/raylet_connection.h"
#include "runtime/api/reference_counter.h"
#include "runtime/api/runtime_env.h"
#include "runtime/api/task_spec_rules.h"
#include "runtime/ids/ids.h"
#include "runtime/scheduler/task_durations.h"
#include "runtime/serialization/protocol.h"
#include "runtime/serialization/start_gate.h"
#include "runtime/transport/transport.h"

namespace ray::core {

class TaskSubmitter {
 public:
  // All three outlive this. Registers for the raylet's ActorGone and LeaseGone, and
  // for the frames of the workers it calls.
  TaskSubmitter(RayletConnection* raylet, ObjectClient* objects, ReferenceCounter* refs);

  // Tasks from now on belong to `job`.
  void SetJob(const JobId& job) { job_ = job; }
  // What this process's submissions inherit unless they set their own.
  void SetInherited(Inherited inherited) { inherited_ = std::move(inherited); }
  // Submits a plugin's TaskRequest (msgpack) for the plugin with content hash
  // `plugin`; returns the ids of the task's results.
  Result<std::vector<ObjectId>> Submit(const std::string& plugin, std::string_view request);

 private:
  // A task's or actor's own runtime environment (as set, JSON), its working_dir and
  // plugins shipped to the cluster through the raylet (runtime_env_ship.h), once per
  // process for each environment: a working_dir changed after its first use is not
  // shipped again. `what` names the task for errors.
  Result<RuntimeEnv> Shipped(const std::string& runtime_env, const std::string& what);
  struct DirectCall {
    std::string function;
    std::vector<ObjectId> returns;
    // Sent again if the worker goes: normal tasks, and actor calls with retries left.
    std::optional<protocol::TaskSpec> spec;
    uint64_t seq = 0;  // the order calls were sent in
    std::vector<ObjectId> contained;  // refs the caller holds for it until answered
  };
  // A connection to a worker's direct socket.
  struct DirectPeer {
    std::string endpoint;
    bool other_node = false;  // an encrypted tcp socket on another node
    std::unique_ptr<transport::Dealer> dealer;  // null once the worker is gone
    std::string lease;  // leased to us for tasks of this resource shape ("": not leased)
    int64_t idle_since_ms = 0;  // monotonic: when its last call in flight was answered
    std::unordered_map<TaskId, DirectCall, IdHash> inflight;  // by task id
    // Leased: the worker's start gate (null: no calls queue on it), and the starts
    // before its first call in flight.
    std::unique_ptr<protocol::StartGate> gate;
    uint64_t gate_base = 0;
    uint64_t lease_seq = 0;  // calls sent under the lease have a greater seq
    uint64_t gate_lease = 0;  // the worker's lease count when it was granted
  };
  struct DirectActor {
    // kAsk: ask the raylet before the next call; kRaylet: calls go through the
    // raylet (ask again after the next blocking Get or Wait); kDirect: to `peer` (on
    // this node or another).
    enum Route { kAsk, kRaylet, kDirect } route = kAsk;
    uint64_t asked_epoch = 0;
    DirectPeer* peer = nullptr;
    int32_t max_task_retries = 0;  // kDirect: the actor's, as the raylet told
  };
  struct LeasePool {
    std::vector<DirectPeer*> workers;
    int64_t denied_ms = -1;  // when the raylet last had no worker to lease
    bool busy = false;       // then, because every resource was taken
    // How long tasks of the shape run, per function: a function's long tasks do not
    // queue behind a worker because another's are short.
    scheduler::TaskDurations durations;
    int64_t wanted_ms = -1;  // when the raylet was last told a lease is wanted (-1: offered)
  };

  // The connection to a worker's direct socket, made on first use; `encrypted`: its
  // tcp socket on another node (ActorRouteReply::encrypted, LeaseReply::encrypted).
  DirectPeer& PeerAt(const std::string& endpoint, bool encrypted = false);
  // The actor's worker if calls to it go direct now (asking the raylet when due).
  DirectPeer* DirectRoute(const ActorId& actor_id);
  // A leased worker to run `spec` on, or null (the task goes through the raylet).
  DirectPeer* LeaseFor(const protocol::TaskSpec& spec);
  // The worker at `endpoint` is leased to us for tasks of `shape` (idle).
  // `gate`: its start gate as the raylet read it when it granted the lease;
  // `other_node`: `endpoint` is its encrypted tcp socket on another node.
  DirectPeer& AdoptLease(LeasePool& pool, const std::string& shape, const std::string& endpoint,
                         const protocol::LeaseGate& gate, bool other_node = false);
  // Whether calls may queue on leased worker `w` behind its running one: it has a
  // start gate (calls not started move to a lease that idles), or it is on another
  // node (calls stay: no gate to read there).
  static bool QueuesCalls(const DirectPeer& w) { return w.gate || w.other_node; }
  // A call queues behind a busy leased worker of `spec`'s shape: the raylet is told a
  // lease is wanted (again after a while, in case the offer was lost).
  void WantLease(LeasePool& pool, const protocol::TaskSpec& spec);
  void OnLeaseOffered(const protocol::LeaseOffer& offer);
  void SubmitDirect(DirectPeer& peer, protocol::TaskSpec spec);
  // The arguments a call to `peer` carries: those held here (values; segments of this
  // node's store only to a worker on this node). The worker fetches the rest.
  std::vector<protocol::ObjectPayload> CarriedArgs(const protocol::TaskSpec& spec,
                                                   const DirectPeer& peer) const;
  // ExecuteTask::lease for a call to `peer`: its lease (0: not leased, or no gate).
  static uint64_t LeaseTag(const DirectPeer& peer);
  // Sends a call made before (its results expected already) to `peer`.
  void Resend(DirectPeer& peer, DirectCall call);
  // A lease of ours is idle: calls queued on another lease of the shape, not started
  // yet, move to it (so none waits behind a running task while its worker is free).
  void MoveQueuedTo(DirectPeer& idle);
  // Closes the leased worker's start gate and takes back the calls not started (in
  // the order sent); the lease is over for us.
  std::vector<DirectCall> TakeBack(DirectPeer& peer);
  void OnPeerFrame(DirectPeer& peer, std::string_view frame);
  void OnDirectDone(DirectPeer& peer, protocol::TaskDone done);
  // Every frame waiting on the peer's socket, handled.
  void DrainPeer(DirectPeer& peer);
  void FailResults(const std::vector<ObjectId>& returns, const ray::internal::ErrorInfo& e);
  void OnActorGone(const protocol::ActorGone& gone);
  void OnLeaseGone(const protocol::LeaseGone& gone);
  void EndLease(DirectPeer& peer);
  // Submits a direct call again through the raylet (its worker could not run it).
  void Resubmit(DirectCall call);
  // The call is answered, failed or handed to the raylet: the refs it held go.
  void Settled(DirectCall& call);

  RayletConnection* raylet_;
  ObjectClient* objects_;
  ReferenceCounter* refs_;
  JobId job_;
  NodeId node_;  // this process's node: its tasks' ids carry it (see NewTaskId)
  Inherited inherited_;
  std::unordered_map<std::string, RuntimeEnv> shipped_envs_;  // see Shipped
  std::unordered_map<std::string, std::unique_ptr<DirectPeer>> peers_;  // by endpoint
  std::unordered_map<ActorId, DirectActor, IdHash> direct_actors_;
  std::unordered_map<std::string, LeasePool> leases_;           // by resource shape
  std::vector<DirectPeer*> polled_peers_;  // the peers of the poll under way
  uint64_t next_seq_ = 0;                  // of direct calls sent
  // When a direct route was last checked against the raylet's news (ActorGone).
  int64_t routes_checked_ms_ = 0;
};

}  // namespace ray::core
