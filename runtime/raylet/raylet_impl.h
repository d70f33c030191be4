#pragma once
// Inside the raylet (see raylet.h for what it is): its state and the handlers of its
// event loop. Not a public interface. The Raylet class keeps the loop, the routing of
// messages and the glue; its policy and its tables live elsewhere:
//   scheduler/local_task_queue.h  ready tasks by resource shape; which start now
//   scheduler/placement.h         the other nodes' resources; where a task runs or spills
//   scheduler/lease_policy.h      whether a lease is granted; which leased workers yield
//   scheduler/pipelining.h        which tasks go ahead to busy workers (tasks_ahead.h sends them)
//   scheduler/infeasible_hold.h   work no node fits, held for the autoscaler or a group
//   scheduler/lost_objects.h      objects with no copy left: made again, asked of the
//                                 owner, or lost for good (and why)
//   scheduler/worker_starts.h     how many worker processes start, and when
//   raylet/object_table.h         objects held here, frees pending, waiters and deadlines
//   raylet/client_table.h         drivers and workers connected here; idle and starting ones
//   raylet/outbox.h               frames to clients, batched per loop turn
//   raylet/plugin_cache.h         local copies of plugins, fetched from the GCS
//   raylet/bundle_book.h          placement-group bundles held here, and those refused
//   raylet/group_bundles.h        those bundles kept in step with the GCS; work waiting
//                                 for a group, failed when it never can run in it
//   raylet/gcs_backlog.h          what waits for the GCS while it does not answer
//   raylet/gcs_calls.h            the API's calls the GCS answers, relayed
//   raylet/gcs_reports.h          heartbeats, and the objects and actors here, told to
//                                 the GCS
//   raylet/local_leases.h         workers leased to callers: grants, offers, yields
//   raylet/tasks_ahead.h          tasks sent ahead to busy workers, and taken back
//   raylet/cpu_lending.h          CPUs lent back by workers blocked in a Get or Wait
//   raylet/object_reads.h         Gets, Waits, pulls and task arguments answered, spilled
//                                 objects restored first
//   raylet/object_locator.h       where objects not held here come from; lost ones made
//                                 again (lineage), asked of their owner, or lost for good
//   raylet/object_holds.h         who else holds objects whose ids left their owner
//   raylet/object_lifetime.h      what is freed when, here and on other nodes (with
//                                 object_holds.h and peer_holds.h)
//   raylet/peer_holds.h           holds said to (and acknowledged by) other nodes
//   raylet/task_events.h          task events batched for the GCS, RUNNING reports
//   raylet/task_reporter.h        what runs here, reported to the GCS (state API, timeline)
//   raylet/actor_directory.h      actors hosted, placed or called here
//   raylet/actor_host.h           their calls, deaths and restarts, kills, direct callers
//                                 told, GCS records
//   raylet/remote_nodes.h         tasks sent to and come from other nodes, remote objects
//   raylet/remote_tasks.h         sending tasks to other nodes, running theirs, results back
//   raylet/remote_asks.h          routes and leases asked of other nodes, and granted
//   raylet/direct_routes.h        routes to actors and leases across nodes, both sides
// The class's own code is split by concern:
//   raylet.cc      the loop, clients, objects stored here, Get, Wait and Put
//   scheduling.cc  tasks, workers and leases on this node
//   cluster.cc     the direct-call path's requests (leases, routes, plugin paths, tcp
//                  endpoints), calls, jobs, housekeeping, and the other nodes of the
//                  cluster (results of direct calls left on them included)

#include "runtime/raylet/raylet.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "runtime/base/logging.h"
#include "runtime/base/util.h"
#include "runtime/gcs/gcs_client.h"
#include "runtime/gcs/gcs_watch.h"
#include "runtime/ids/ids.h"
#include "runtime/object_store/object_store.h"
#include "runtime/raylet/worker_pool.h"
#include "runtime/scheduler/infeasible_hold.h"
#include "runtime/scheduler/lease_policy.h"
#include "runtime/scheduler/local_task_queue.h"
#include "runtime/scheduler/lost_objects.h"
#include "runtime/scheduler/pipelining.h"
#include "runtime/scheduler/placement.h"
#include "runtime/scheduler/resources.h"
#include "runtime/scheduler/worker_starts.h"
#include "runtime/serialization/running_task.h"
#include "runtime/serialization/start_gate.h"
#include "runtime/transport/transport.h"

#include "runtime/raylet/actor_directory.h"
#include "runtime/raylet/actor_host.h"
#include "runtime/raylet/bundle_book.h"
#include "runtime/raylet/client_table.h"
#include "runtime/raylet/cpu_lending.h"
#include "runtime/raylet/direct_routes.h"
#include "runtime/raylet/gcs_backlog.h"
#include "runtime/raylet/gcs_calls.h"
#include "runtime/raylet/gcs_reports.h"
#include "runtime/raylet/group_bundles.h"
#include "runtime/raylet/gpu_allocator.h"
#include "runtime/raylet/local_leases.h"
#include "runtime/raylet/object_holds.h"
#include "runtime/raylet/object_lifetime.h"
#include "runtime/raylet/peer_holds.h"
#include "runtime/raylet/object_locator.h"
#include "runtime/raylet/object_manager.h"
#include "runtime/raylet/object_reads.h"
#include "runtime/raylet/object_table.h"
#include "runtime/raylet/outbox.h"
#include "runtime/raylet/plugin_cache.h"
#include "runtime/raylet/remote_asks.h"
#include "runtime/raylet/remote_nodes.h"
#include "runtime/raylet/remote_tasks.h"
#include "runtime/raylet/task_reporter.h"
#include "runtime/raylet/tasks_ahead.h"

namespace ray::raylet {

using protocol::MessageType;
using protocol::ObjectPayload;
using protocol::ObjectState;
using protocol::TaskSpec;
using scheduler::ResourceSet;
using scheduler::ResourcesOf;
namespace ri = ray::internal;

inline std::string Hex(const std::string& bin) { return ToHex(bin); }

using protocol::CheckTaskSpec;

class Raylet {
 public:
  explicit Raylet(const RayletOptions& o)
      : options_(o),
        clock_(o.clock ? *o.clock : Clock::System()),
        node_id_(NodeId::FromRandom()),
        store_({ContentHash(o.session_dir).substr(0, 8) + ToHex(RandomBytes(3)),
                o.object_store_bytes, o.session_dir + "/spill", /*background_io=*/true},
               [this] { return MappedSegments(); }),
        gcs_watch_(o.gcs_address, o.token),
        gcs_(o.gcs_address, o.token, 1000),
        gcs_reports_(gcs_, node_id_.Binary(), o.heartbeat_ms),
        objects_(clock_),
        peer_holds_(node_id_.Binary()),
        leases_({clients_, available_, ready_, outbox_, clock_,
                 [this](size_t n) { StartWorkers(n); }, [this] { ahead_.MoveToIdle(); }}),
        ahead_({clients_, ready_, available_, outbox_,
                [this] {
                  if (!MultiNode()) RefreshCluster();
                  return MultiNode();
                },
                [this](Client& w, const TaskSpec& t) { SendExecute(w, t, /*ahead=*/true); }}),
        lending_({clients_, available_, leases_, [this] { ahead_.MoveToIdle(); }}),
        reads_({objects_, store_, outbox_, lending_, [this] { DropEvicted(); },
                [this](const ObjectId& id, const std::string& hint) { locator_.Locate(id, hint); },
                [this](Waiter& w) { ArgsReady(w); }, [this](Waiter& w) { ServePull(w); }}),
        plugins_(o.session_dir + "/plugins",
                 [this](const std::string& hash) { return gcs_.GetPlugin(hash); }),
        placement_(ResourceSet::FromDoubles(o.resources)),
        routes_({node_id_.Binary(), clients_, actors_, remote_, placement_, available_, leases_,
                 [this](const std::string& node, const std::string& frame) {
                   return peers_->TellFrame(node, frame);
                 },
                 outbox_, clock_}),
        locator_({node_id_.Binary(), remote_, placement_, objects_, evicted_,
                  [this](const ObjectId& id, const std::string& node) { return peers_->Pull(id, node); },
                  [this](const ObjectId& id) { return peers_->Pulling(id); },
                  [this](const std::vector<std::string>& ids) { return gcs_.GetObjectLocations(ids); },
                  [this](const ObjectId& id, const std::string& why) {
                    StoreError(id, ri::ErrorInfo{ri::kObjectLost, "ObjectLostError",
                                                 "object " + id.Hex() + " " + why, "", ""});
                  },
                  [this](TaskSpec t) { Place(std::move(t), /*may_forward=*/true); }}),
        lifetime_({node_id_.Binary(), objects_, peer_holds_, remote_, placement_, clock_,
                   [this](const ObjectId& id, bool keep_segment) {
                     if (keep_segment) {
                       store_.Forget(id);  // the client fills the segment again; `ray stop` removes it
                     } else {
                       store_.Free(id);
                     }
                   },
                   [this](const ActorId& id) { actor_host_.Unreferenced(id); },
                   [this](const TaskId& task) {
                     // An actor that may restart runs its constructor again: with the same arguments.
                     const Actor* a = actors_.Find(ActorOfCreation(task));
                     return a && a->creation.task_id == task && a->state != Actor::kDead &&
                            a->MayRestart();
                   },
                   [this] { return RefreshCluster(); }}),
        remote_tasks_({node_id_.Binary(), remote_, placement_, actors_, objects_, locator_, lifetime_,
                       peer_holds_, evicted_, clock_,
                       [this](const std::string& node, const std::string& frame) {
                         return peers_->TellFrame(node, frame);
                       },
                       [this](TaskSpec t) { Place(std::move(t), /*may_forward=*/false); },
                       [this](const ObjectPayload& p) { StoreObject(p, /*copy=*/true); },
                       [this](const TaskSpec& t) { return JobOver(t); }}),
        actor_host_({node_id_.Binary(), actors_, clients_, objects_, outbox_, gcs_reports_, gcs_,
                     gcs_backlog_, placement_,
                     [this](const std::string& node, const std::string& frame) {
                       return peers_->TellFrame(node, frame);
                     },
                     [this](TaskSpec t, const std::string& node) { remote_tasks_.Send(std::move(t), node); },
                     [this](Client& w, const TaskSpec& t) { SendExecute(w, t); },
                     [this](const TaskSpec& t, ri::ErrorKind kind, const std::string& type,
                            const std::string& message) { FailTask(t, kind, type, message); },
                     [this](TaskSpec creation) { OnArgsReady(std::move(creation)); },
                     [this](std::shared_ptr<Waiter> w) { reads_.Await(std::move(w)); },
                     [this](const std::string& worker) { pool_->Kill(worker); },
                     [this](const TaskId& task) { lifetime_.ReleaseHolds(ObjectHolds::Task(task)); },
                     [this](const TaskSpec& t) { return JobOver(t); },
                     [this](const TaskId& creation) {
                       ready_.EraseIf([&](const TaskSpec& t) {
                         return t.kind == ri::kActorCreation && t.task_id == creation;
                       });
                     }}),
        gcs_calls_(gcs_, node_id_.Binary(), placement_, available_, [this] { group_bundles_.Sync(); }),
        reporter_(node_id_.Binary(), o.session_dir, clock_,
                  [this](const auto& events) { return gcs_.AddTaskEvents(events); }, clients_,
                  actors_),
        gpus_(GpuAllocator::NodeGpuIds(o.resources.count("GPU") ? o.resources.at("GPU") : 0,
                                       std::getenv("CUDA_VISIBLE_DEVICES"))),
        starts_(o.max_workers, o.prestart_workers, o.resources.count("CPU") ? o.resources.at("CPU") : 1),
        group_bundles_({node_id_.Binary(), bundles_, placement_, available_, clients_, actors_, ready_,
                        infeasible_, gcs_,
                        [this](const ActorId& id, const std::string& why) { actor_host_.Died(id, why); },
                        [this](const std::string& worker) { pool_->Kill(worker); },
                        [this](TaskSpec t) { Place(std::move(t), /*may_forward=*/true); },
                        [this](const TaskSpec& t, ri::ErrorKind kind, const std::string& type,
                               const std::string& message) { FailTask(t, kind, type, message); }}) {
    gcs_.set_watch(&gcs_watch_);  // while the GCS is down, its calls fail at once
    available_ = placement_.local_total();
  }

  Status Run(const std::atomic<bool>& stop);

 private:
  // --- messages
  void HandleFrame(const std::string& peer, std::string_view frame, bool in_batch = false);
  void HandleRegister(const std::string& peer, uint64_t req, std::string_view body);
  void HandleSubmit(const std::string& peer, std::string_view body);
  void HandleGet(Client& c, uint64_t req, std::string_view body);
  void HandleWait(Client& c, uint64_t req, std::string_view body);
  // Client `c`'s Get or Wait (request `req`, waiter `w` of its kind) of `ids`: the
  // tasks sent ahead to it come back (it may wait for them), it is answered once its
  // objects are here or `timeout_ms` passed (-1: never), and its CPU is lent meanwhile
  // (unless it is a poll, timeout 0).
  void Read(Client& c, uint64_t req, std::shared_ptr<Waiter> w, std::vector<ObjectId> ids,
            int64_t timeout_ms);
  void HandlePut(Client& c, uint64_t req, std::string_view body);
  void HandleTaskDone(Client& c, std::string_view body);
  // What the client holds changed: objects it borrows, lets go of, or (owner) no
  // longer refers to (see object_holds.h).
  void HandleFree(Client& c, std::string_view body);
  void HandleCall(Client& c, uint64_t req, std::string_view body);
  // Leases (local_leases.h): a caller's calls wait behind its busy leased workers
  // (kLeaseWanted): it is offered a lease once resources for one free up.
  void HandleLeaseWanted(Client& c, std::string_view body);
  // The caller is gone: its leases here and its asks of other nodes end.
  void RevokeLeasesOf(const std::string& caller);
  // A client's message body as a T, or nullopt after a warning naming the client
  // and what was wrong.
  template <typename T>
  std::optional<T> DecodeFrom(const std::string& peer, std::string_view body, const char* what) {
    auto msg = protocol::DecodeBody<T>(body, what);
    if (!msg.ok()) {
      RAY_LOG_WARN("peer {}: {}", Hex(peer), msg.status().message());
      return std::nullopt;
    }
    return std::move(msg).value();
  }
  // Frames to clients wait in an outbox until the end of the loop turn, so that a
  // burst to one client (tasks, replies) leaves as one batch.
  void Send(const std::string& peer, MessageType type, uint64_t req, const std::string& body) {
    outbox_.Send(peer, type, req, body);
  }
  template <typename T>
  void SendMsg(const std::string& peer, MessageType type, uint64_t req, const T& body) {
    outbox_.Send(peer, type, req, body);
  }
  void FlushOutbox();

  // --- objects
  // `copy`: pulled from another node, which holds the object; nobody references the
  // copy here, so a full store may evict it (a later reader pulls it again).
  void StoreObject(const ObjectPayload& p, bool copy = false);
  // Drops the objects the store evicted to make room from the table.
  void DropEvicted();
  // The names of the store's segments this process and its clients map now: those
  // objects are pinned (see object_store.h).
  std::unordered_set<std::string> MappedSegments() const;
  void StoreError(const ObjectId& id, const ri::ErrorInfo& e);
  // An object pulled from node `from` arrived (or the error that its copy there is lost).
  void OnObjectPulled(const ObjectPayload& p, const std::string& from);
  void FailTask(const TaskSpec& t, ri::ErrorKind kind, const std::string& type,
                const std::string& message);
  // The arguments of a task (kTask waiter `w`) are here: a normal task or actor
  // creation goes to the ready queue, an actor's queue goes on.
  void ArgsReady(Waiter& w);
  // The object another node pulls (kPeerPull waiter `w`) is here: it is sent.
  void ServePull(Waiter& w);
  bool Ready(const ObjectId& id) const { return objects_.Ready(id); }
  // Stores `objects` (a put, or a task's results), whose values hold the refs
  // `contained`.
  void StoreHolding(std::span<const ObjectPayload> objects, const std::vector<ObjectId>& contained);
  // Sends `reply` once every borrow said to other nodes so far is acknowledged (a
  // client that then lets go of what held the refs cannot free them too early).
  void ReplyAfterBorrows(const std::string& peer, uint64_t req, protocol::CallReply reply);

  // --- tasks and workers
  // Runs the task here, or (may_forward) on the node that should run it.
  void Place(TaskSpec spec, bool may_forward);
  void Enqueue(TaskSpec t);
  void OnArgsReady(TaskSpec t);
  void Dispatch();
  // Whether the node's free GPU ids can hold `need`'s GPU amount now.
  bool GpusFit(const ResourceSet& need) const;
  // Sends a task to a worker; it counts as running from now unless `ahead`.
  void SendExecute(Client& w, const TaskSpec& t, bool ahead = false);
  // Starts up to `wanted` workers, as many as scheduler/worker_starts.h allows.
  // `beyond_limit`: for an actor creation that no idle worker can take.
  void StartWorkers(size_t wanted, bool beyond_limit = false);
  // Starts a worker for a task of runtime environment `env` that no idle worker serves.
  void StartWorkerFor(const std::string& env);
  void OnWorkerExit(const WorkerPool::Exit& e);

  // Whether `t` belongs to a job that has ended (a detached actor's creation does
  // not: the actor outlives its job).
  bool JobOver(const TaskSpec& t) const {
    return finished_jobs_.count(t.job_id) > 0 && !(t.kind == ri::kActorCreation && t.detached);
  }

  // --- direct calls (direct_routes.h): a worker here listens on tcp.
  void HandleTcpEndpoint(Client& c, std::string_view body);
  // A caller's direct call left results on the node of the worker it ran on.
  void HandleRanElsewhere(Client& c, std::string_view body);
  // The typed requests of the direct-call path, answered at once.
  void HandleLeaseWorker(Client& c, uint64_t req, std::string_view body);
  void HandleActorRoute(Client& c, uint64_t req, std::string_view body);
  void HandlePluginPath(Client& c, uint64_t req, std::string_view body);

  // --- the other nodes (cluster.cc)
  protocol::NodeInfo SelfInfo() const;
  // The work waiting here for resources, by shape (heartbeats carry it).
  std::vector<protocol::ResourceDemand> Load() const;
  // Whether the cluster's autoscaler runs (asked of the GCS at most every 2 s).
  bool AutoscalerAlive();
  // Places the held infeasible work again (a node may have joined).
  void RetryInfeasible();
  bool MultiNode() const { return placement_.MultiNode(); }
  // Moves queued tasks that cannot start here now to nodes with room for them.
  void SpillQueued();
  void OnPullRequested(const std::string& peer, const ObjectId& id);
  // Re-reads the cluster from the GCS; false if skipped (rate limit) or failed.
  bool RefreshCluster();
  void OnNodeDead(const std::string& node_id);

  // --- jobs and periodic work
  void FinishJob(const JobId& job_id);
  void Periodic();
  // The GCS answers again after it was down: sends what waited for it, answers the
  // requests deferred meanwhile.
  void OnGcsBack();
  // A GCS server started since the last heartbeat (its write-behind buffer may have
  // died with the one before): this node's object locations are reported again.
  void OnGcsRestarted();
  void ForwardLogs(const std::string& worker, int pid, std::string_view text, bool is_stderr);
  std::string Where(int pid) const {
    return fmt::format("node {}, pid {}", options_.node_ip, pid);
  }

  RayletOptions options_;
  const Clock& clock_;
  NodeId node_id_;
  std::string endpoint_;
  transport::Router router_;
  std::unique_ptr<WorkerPool> pool_;
  object_store::ObjectStore store_;
  // The GCS, and whether it answers. While it is down (it died; its supervisor starts
  // it again) the loop never waits for it: what must be written waits here (task
  // events, actor records, object locations; heartbeats resume) and requests that
  // need its answer wait in gcs_backlog_ until it is back (OnGcsBack answers them).
  gcs::GcsWatch gcs_watch_;
  gcs::GcsClient gcs_;
  GcsBacklog gcs_backlog_;
  // Heartbeats, and the objects and actors here, told to the GCS. Objects reported:
  // every shared-memory object, and on a multi-node cluster every object (other nodes
  // look small ones up there too).
  GcsReports gcs_reports_;
  ResourceSet available_;  // this node's free resources (its total: placement_)

  ClientTable clients_;  // drivers and workers; the idle workers, those starting
  Outbox outbox_;  // frames to clients, sent at the end of the loop turn
  // The node's small objects, for its processes to read without a message.
  std::unique_ptr<object_store::ObjectIndexWriter> index_;
  ObjectTable objects_;  // and who waits for them
  PeerHolds peer_holds_;  // what other nodes are told of the objects held here
  // Copies evicted from the store: a reader that cannot find them elsewhere is told
  // they are lost.
  std::unordered_set<ObjectId, IdHash> evicted_;
  // Tasks whose arguments are ready, waiting for resources and a worker.
  scheduler::LocalTaskQueue ready_;
  LocalLeases leases_;  // workers leased to callers here (and on other nodes)
  TasksAhead ahead_;     // tasks sent ahead to busy workers
  CpuLending lending_;   // CPUs lent back by workers blocked in a Get or Wait
  ObjectReads reads_;    // readers of objects, answered once their objects are here
  ActorDirectory actors_;
  std::set<JobId> finished_jobs_;
  // Local copies of plugins, fetched from the GCS when missing: while it cannot be
  // reached a task waits for its plugin, instead of failing for want of the file.
  PluginCache plugins_;
  int64_t next_periodic_ms_ = 0;

  // The cluster beyond this node.
  std::unique_ptr<ObjectManager> peers_;
  std::string peer_address_;
  scheduler::Placement placement_;  // this node and the others, as last heard of
  RemoteNodes remote_;  // tasks and objects on other nodes, tasks from them
  // Direct calls past the raylets: routes to actors, leases across nodes.
  DirectRoutes routes_;
  // Where awaited objects not held here come from; those lost, made again or not.
  ObjectLocator locator_;
  // Who else holds the objects whose ids left their owner; what goes when.
  ObjectLifetime lifetime_;
  RemoteTasks remote_tasks_;  // tasks sent to other nodes, and run here for them
  ActorHost actor_host_;  // calls, deaths, kills and records of the actors in actors_
  int64_t last_refresh_ms_ = 0;
  // Tasks and actors no node fits, held while an autoscaler may add one that does
  // (placed again every second; failed when the autoscaler is gone).
  scheduler::InfeasibleHold infeasible_;
  const std::atomic<bool>* stop_ = nullptr;  // set by Run: the loop ends when true
  int64_t next_jobs_check_ms_ = 0;
  GcsCalls gcs_calls_;  // the API's calls the GCS answers
  TaskReporter reporter_;  // task events for the state API, batched to the GCS
  BundleBook bundles_;  // placement-group bundles reserved here, and those refused
  GpuAllocator gpus_;
  scheduler::WorkerStarts starts_;  // how many workers start, and when
  GroupBundles group_bundles_;  // placement-group bundles kept in step with the GCS
};

}  // namespace ray::raylet
