#pragma once
// The runtime inside a driver or worker process: a connection to the node's raylet
// through which tasks are submitted and objects are put, fetched and waited for.
// It is what a plugin's RayRuntimeApi calls into (see runtime_api.h).
//
// Not thread-safe: one CoreClient per process, used from one thread. While a call
// waits for its reply, frames meant for later (tasks for this worker, log lines for
// this driver) are kept or printed, never lost.

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <optional>
#include <string>
#include <vector>

#include "runtime/api/object_cache.h"
#include "runtime/base/status.h"
#include "runtime/ids/ids.h"
#include "runtime/object_store/object_store.h"
#include "runtime/serialization/protocol.h"
#include "runtime/serialization/running_task.h"
#include "runtime/transport/transport.h"

namespace ray::core {

// A fetched object's bytes and what keeps them alive (a heap copy or a mapping).
struct Fetched {
  protocol::ObjectState state = protocol::ObjectState::kMissing;
  const char* data = nullptr;
  size_t size = 0;
  std::shared_ptr<const void> keep;
};

// A task a worker received, and where its result goes: "" the raylet, else the caller
// that sent it directly (that caller's identity on the worker's direct socket).
struct IncomingTask {
  protocol::ExecuteTask task;
  std::string reply_to;
};

class CoreClient {
 public:
  // Connects and registers. Drivers give their job id; workers their worker id
  // (the identity the raylet started them with).
  static Result<std::unique_ptr<CoreClient>> Connect(const std::string& raylet_endpoint,
                                                     bool is_driver, const JobId& job,
                                                     const std::string& worker_id);
  ~CoreClient();

  // Submits a plugin's TaskRequest (msgpack) for the plugin with content hash
  // `plugin`; returns the ids of the task's results.
  Result<std::vector<ObjectId>> Submit(const std::string& plugin, std::string_view request);
  Result<ObjectId> Put(std::string_view value) { return Put(std::vector<std::string_view>{value}); }
  // Put of the concatenation of `parts` (copied once).
  Result<ObjectId> Put(const std::vector<std::string_view>& parts);
  // Objects not ready before the timeout (timeout_ms >= 0) come back kMissing.
  Result<std::vector<Fetched>> Get(const std::vector<ObjectId>& ids, int64_t timeout_ms);
  Result<std::vector<bool>> Wait(const std::vector<ObjectId>& ids, size_t num,
                                 int64_t timeout_ms);
  // Named raylet operations (named actors, cluster resources).
  Result<std::string> Call(const std::string& op, const std::string& body);

  // Worker side. The next task to run (nullopt: the raylet asked us to exit).
  std::optional<IncomingTask> NextTask();
  // Reports a task's results to where the task came from (see IncomingTask).
  void SendTaskDone(const IncomingTask& task, const protocol::TaskDone& done);
  // Task whose puts and submissions follow (workers: the running task).
  void SetCurrentTask(const TaskId& task, const JobId& job);
  // Turns bytes into a payload: inline if small, else a shared-memory segment.
  Result<protocol::ObjectPayload> MakePayload(const ObjectId& id, std::string_view bytes);
  // Reads a payload as delivered by the raylet (maps shared memory).
  Result<Fetched> Materialize(const protocol::ObjectPayload& p);

  // Reference counting of ObjectRefs (see RayRuntimeApi::ref_delta). Safe from any
  // thread; frees are sent from the client's own thread, before its next blocking
  // call, and only for objects still unreferenced then.
  void RefDelta(const ObjectId& id, int32_t delta);
  void RefEscaped(const ObjectId& id);

  // Drivers: says goodbye so the raylet frees the job's actors and objects.
  void Disconnect();

  const protocol::RegisterReply& node() const { return node_; }
  const JobId& job() const { return job_; }

 private:
  CoreClient() = default;
  // Sends a request and waits for the reply with its request id.
  Result<std::string> Roundtrip(protocol::MessageType type, const std::string& body,
                                protocol::MessageType reply_type);
  // The next frame from the raylet, batches taken apart (timeout_ms -1: wait forever).
  // Frames on the direct sockets are handled meanwhile; nullopt after handling some.
  std::optional<std::string> Receive(int timeout_ms);
  // Handles a frame that is not the awaited reply.
  void Stash(std::string frame);
  // Sends a request; false if `settled` turned true while waiting for the reply
  // (whose reply is then dropped when it comes).
  Result<std::optional<std::string>> Roundtrip(protocol::MessageType type,
                                               const std::string& body,
                                               protocol::MessageType reply_type,
                                               const std::function<bool()>& settled);
  // An object this process created: freed when its last ObjectRef here goes.
  void Own(const ObjectId& id, bool direct = false);
  // Receives one frame (Stash-ing it) or times out; false if the raylet died.
  bool Pump(int timeout_ms);
  // Whether the raylet process lives (as of the last look, at most a second ago; once
  // seen dead, for good).
  bool RayletAlive();
  // A value this process holds: cached, or a direct call's result.
  const ObjectCache::Entry* LocalValue(const ObjectId& id) const;
  // A shared-memory segment holding the parts, for object `id`: a spare segment of
  // the same size if there is one, else a new one.
  Result<std::shared_ptr<object_store::WritableSegment>> WriteSegment(
      const ObjectId& id, const std::vector<std::string_view>& parts, size_t size);
  // Sends `frame`, in one message with the frees due: all of them if `all`, else
  // only once enough have gathered.
  void SendWithFrees(std::string frame, bool all);
  // The frees due (all, or only once enough have gathered) that the raylet must hear
  // of; objects only this process knows (direct results) go here and now.
  protocol::FreeObjects TakeFrees(bool all);

  // --- Direct calls: a caller sends actor calls, and normal tasks on workers the
  // raylet leased to it, straight to the worker, which answers straight back.
  // Results live here (the owner) until their ids escape, when they go to the raylet
  // for other processes to read. See "Direct calls" in the .cc.
  struct DirectCall {
    std::string function;
    std::vector<ObjectId> returns;
    std::optional<protocol::TaskSpec> spec;  // normal tasks: sent again if the worker goes
  };
  // A connection to a worker's direct socket.
  struct DirectPeer {
    std::string endpoint;
    std::unique_ptr<transport::Dealer> dealer;  // null once the worker is gone
    std::string lease;  // leased to us for tasks of this resource shape ("": not leased)
    int64_t idle_since_ms = 0;  // monotonic: when its last call in flight was answered
    std::unordered_map<std::string, DirectCall> inflight;  // by task id
  };
  struct DirectActor {
    // kAsk: ask the raylet before the next call; kRaylet: calls go through the
    // raylet (ask again after the next blocking Get or Wait); kDirect: to `peer`.
    // kNever: the actor lives on another node.
    enum Route { kAsk, kRaylet, kDirect, kNever } route = kAsk;
    uint64_t asked_epoch = 0;
    DirectPeer* peer = nullptr;
  };
  struct LeasePool {
    std::vector<DirectPeer*> workers;
    int64_t denied_ms = -1;  // when the raylet last had no worker to lease
    bool busy = false;       // then, because every resource was taken
    double task_ms = -1;     // how long tasks of the shape run (moving average)
  };
  // The connection to a worker's direct socket, made on first use.
  DirectPeer& PeerAt(const std::string& endpoint);
  // The actor's worker if calls to it go direct now (asking the raylet when due).
  DirectPeer* DirectRoute(const std::string& actor_id);
  // A leased worker to run `spec` on, or null (the task goes through the raylet).
  DirectPeer* LeaseFor(const protocol::TaskSpec& spec);
  void SubmitDirect(DirectPeer& peer, protocol::TaskSpec spec);
  void OnPeerFrame(DirectPeer& peer, std::string_view frame);
  void OnDirectDone(DirectPeer& peer, protocol::TaskDone done);
  // Every frame waiting on the peer's socket, handled.
  void DrainPeer(DirectPeer& peer);
  // The results still in flight become this error.
  void FailResults(const std::vector<ObjectId>& returns, const ray::internal::ErrorInfo& e);
  void OnActorGone(const protocol::ActorGone& gone);
  void OnLeaseGone(const protocol::LeaseGone& gone);
  void EndLease(DirectPeer& peer);
  // Submits a direct call again through the raylet (its worker could not run it).
  void Resubmit(DirectCall call);
  // Results of direct calls whose ids escaped go to the raylet (waiting for those
  // still in flight): before anything that may carry the ids is sent.
  void PromoteEscaped();
  // Worker side: frames from direct callers, the lease, and task events.
  void OnDirectFrame(const std::string& caller, std::string_view frame);
  // Tasks from callers this worker is not (yet) leased to: the lease may be on its way.
  void CheckUnleased();
  void Bounce(const std::string& caller, const std::string& task_id);
  void ReturnLease();
  void FlushTaskEvents(bool force);

  transport::Dealer* dealer_ = nullptr;
  std::unique_ptr<transport::Dealer> owned_;
  std::string identity_;  // this client's name on the raylet's socket, and on workers'
  protocol::RegisterReply node_;
  bool is_driver_ = false;
  JobId job_;
  TaskId current_task_;
  uint32_t put_index_ = 0;
  uint64_t next_request_ = 1;
  struct Owned {
    int32_t refs = 0;
    bool escaped = false;  // its id left the process: kept until the job ends
    bool direct = false;   // a direct call's result: the raylet knows it once promoted
  };
  std::mutex refs_mu_;  // guards refs_ and unreferenced_
  std::unordered_map<ObjectId, Owned, IdHash> refs_;
  std::vector<ObjectId> unreferenced_;  // owned objects whose count reached 0
  std::vector<ObjectId> to_promote_;    // direct results whose ids escaped
  // Large objects this process put, still mapped for writing: its Gets read them
  // through this mapping, and once freed and no longer read, the segment becomes a
  // spare that a later Put of the same size fills again (no new pages to fault in).
  std::unordered_map<ObjectId, std::shared_ptr<object_store::WritableSegment>, IdHash> written_;
  std::vector<std::shared_ptr<object_store::WritableSegment>> spare_;
  size_t spare_bytes_ = 0;
  // Small objects put or fetched here: Get and Wait on them ask no one.
  ObjectCache cache_{20000, 16 << 20};
  std::deque<std::string> inbox_;          // the rest of a batch being read
  std::deque<IncomingTask> pending_tasks_;  // received, not yet started
  std::unordered_set<uint64_t> abandoned_;  // requests whose replies are not awaited
  // Direct calls, caller side.
  std::unordered_map<std::string, std::unique_ptr<DirectPeer>> peers_;  // by endpoint
  std::unordered_map<std::string, DirectActor> direct_actors_;  // by actor id
  std::unordered_map<std::string, LeasePool> leases_;           // by resource shape
  std::unordered_set<ObjectId, IdHash> direct_pending_;         // results in flight
  std::vector<zmq::pollitem_t> poll_items_;  // Receive's, kept to reuse
  std::vector<DirectPeer*> polled_peers_;
  std::unordered_map<ObjectId, ObjectCache::Entry, IdHash> direct_values_;  // arrived
  uint64_t block_epoch_ = 0;  // counts Gets and Waits that asked the raylet
  int64_t next_raylet_check_ms_ = 0;  // RayletAlive's next look (monotonic)
  bool raylet_dead_ = false;
  // Direct calls, worker side.
  std::unique_ptr<transport::Router> direct_router_;
  std::string direct_endpoint_;
  std::unique_ptr<protocol::RunningTaskSlot> running_;  // the direct call it runs, for the raylet
  std::string running_path_;
  std::string leased_to_;      // the caller this worker is leased to ("": none)
  std::string returned_to_;    // the caller whose lease it returned last
  bool lease_revoked_ = false;  // that caller is gone: return the lease when idle
  bool lease_yield_ = false;    // the raylet has tasks waiting: return it when idle
  int64_t lease_idle_ms_ = 0;  // the lease ends if no task comes by then
  struct Unleased {
    IncomingTask task;
    int64_t arrived_ms;
  };
  std::deque<Unleased> unleased_;
  // Direct calls this worker ran, reported to the raylet within kTaskEventsDelayMs; at
  // once for calls that ran kTaskEventsLongMs or more (the raylet may show them
  // RUNNING); and before the next call starts, when none waits behind it, once
  // kTaskEventsStaleMs old (the call may run long).
  static constexpr int64_t kTaskEventsDelayMs = 100;
  static constexpr int64_t kTaskEventsLongMs = 1;
  static constexpr int64_t kTaskEventsStaleMs = 20;
  static constexpr size_t kMaxTaskEvents = 1000;
  std::vector<protocol::TaskEventRecord> task_events_;
  int64_t task_events_due_ms_ = 0;
  bool exit_requested_ = false;
  bool disconnected_ = false;
};

}  // namespace ray::core
