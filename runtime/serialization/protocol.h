#pragma once
// The messages between ray processes. Every frame is an envelope,
//   msgpack [kProtocolVersion, MessageType, request_id]  followed by  msgpack body,
// where the body is the struct named in MessageType's comment. Decode() never throws:
// a frame of the wrong version, a truncated or garbage frame, or a body of the wrong
// shape comes back as InvalidArgument naming what was wrong.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <msgpack.hpp>

#include "ray/wire.h"
#include "runtime/base/status.h"
#include "runtime/serialization/id_codec.h"

namespace ray::protocol {

// 2: LeaseWorker, ActorRoute, PluginPath; 3: chunks in a second part, PullElsewhere,
// TaskDone::run_us; 4: task, job and actor ids as bins of their size (TaskSpec and the
// messages that name a task, job or actor).
constexpr uint32_t kProtocolVersion = 4;
// Frames larger than this are refused by every socket.
constexpr int64_t kMaxFrameBytes = 512ll << 20;
// Values at least this large go to the shared-memory store; smaller travel inline.
constexpr size_t kInlineObjectLimit = 100 * 1024;

enum class MessageType : uint16_t {
  // client (driver/worker) -> raylet
  kRegisterClient = 1,  // RegisterClient -> RegisterReply
  kSubmitTask = 2,      // TaskSpec (no reply)
  kGetObjects = 3,      // GetRequest -> GetReply
  kWaitObjects = 4,     // WaitRequest -> WaitReply
  kPutObject = 5,       // PutRequest (no reply)
  kTaskDone = 6,        // TaskDone (worker; no reply)
  kCall = 7,            // CallRequest -> CallReply (named actors, resources, ...)
  kDisconnect = 8,      // empty body
  kFreeObjects = 10,    // FreeObjects (no reply)
  kTaskEvents = 11,     // TaskEvents (worker: the direct calls it ran; no reply)
  kReturnLease = 12,    // empty body (a leased worker is idle: its lease ends)
  kLeaseWorker = 13,    // LeaseRequest -> LeaseReply (a caller asks for a worker)
  kActorRoute = 14,     // ActorRouteRequest -> ActorRouteReply (where to call an actor)
  kPluginPath = 15,     // PluginPathRequest -> PluginPathReply (a worker finds a plugin)
  kLeaseWanted = 16,    // LeaseRequest (no reply): calls wait behind the caller's busy
                        // leased workers; offer a lease once resources free up
  kTcpEndpoint = 17,    // TcpEndpoint (no reply): where callers on other nodes reach
                        // this worker (after kListenTcp)
  kRanElsewhere = 18,   // RanElsewhere (no reply): a direct call on another node left
                        // results in that node's store
  kAbandoned = 19,      // empty body (no reply): the client stopped waiting for the
                        // answer to its request `request_id` (a Wait a direct result
                        // settled); its reply, if any, is to be dropped
  // either way between a client and its raylet: several frames in one (EncodeBatch),
  // so that a burst costs the sockets one message
  kBatch = 9,
  // raylet -> client
  kRegisterReply = 20,
  kGetReply = 21,
  kWaitReply = 22,
  kExecuteTask = 23,  // ExecuteTask
  kCallReply = 24,
  kLogLines = 25,  // LogLines (to drivers)
  kExit = 26,      // worker: exit now (empty body)
  kRevokeTasks = 27,  // RevokeTasks: drop these tasks sent ahead, not yet started
  kActorGone = 28,    // ActorGone: an actor called directly died or restarts
  kLeaseGranted = 29, // LeaseGranted (to a worker: tasks from this caller may come)
  kRevokeLease = 30,  // empty body (to a leased worker: its caller is gone)
  kLeaseGone = 31,    // LeaseGone (to a caller: its leased worker died)
  kYieldLease = 32,   // empty body (to a leased worker: tasks wait in the raylet's
                      // queue; the caller is to send no more, the lease ends once idle)
  kLeaseReply = 33,
  kActorRouteReply = 34,
  kPluginPathReply = 35,
  kLeaseOffered = 36,  // LeaseOffer (to a caller: a lease it wanted, kLeaseWanted)
  kListenTcp = 37,     // empty body (to a worker: a caller on another node would call
                       // it directly, its actor or under a lease; listen on tcp,
                       // kTcpEndpoint)
  // caller <-> worker, directly (the raylet not involved): kExecuteTask (caller ->
  // worker) and kTaskDone (worker -> caller), and:
  kTaskBounced = 70,    // worker -> caller: body the task id; not run (no lease): resend
  kLeaseReturned = 71,  // worker -> caller: empty body; the lease ended
  kTakenBack = 72,      // caller -> worker: empty body; it closed the start gate and took
                        // back the calls not started (start_gate.h); the lease ends
  // raylet/cli -> gcs
  kRegisterNode = 40,   // NodeInfo -> GcsReply
  kHeartbeat = 41,      // Heartbeat -> GcsReply
  kGcsCall = 42,        // CallRequest -> CallReply
  kGcsReply = 43,       // GcsReply
  kUnregisterNode = 44, // Heartbeat (node_id only)
  // raylet <-> raylet (tcp, after a PeerHello with the cluster token)
  kPeerHello = 60,    // PeerHello (no reply)
  kForwardTask = 61,  // ForwardTask (no reply)
  kPullObject = 62,   // PullObject -> one or more ObjectChunk
  kObjectChunk = 63,  // ObjectChunk
  kTaskFinished = 64, // TaskFinished: a forwarded task's results exist on the sender
  kChunkAck = 65,     // PullObject: a chunk of the object arrived; the sender may send on
  kKillActor = 66,    // ActorKill (no reply): kill an actor this node hosts
  kRouteAsk = 69,     // RouteAsk: a caller on the sender's node would call an actor
                      // this node hosts directly; answered with kRouteAnswer
  kRouteAnswer = 73,  // RouteAnswer (to the asking node)
  kPeerActorGone = 74,  // PeerActorGone: an actor a caller on the receiving node calls
                        // directly is gone (ActorGone, to be passed on)
  kLeaseAsk = 75,       // LeaseAsk: a caller on the sender's node wants a worker here
                        // (a shape its node cannot fit); answered with kLeaseAnswer
  kLeaseAnswer = 76,    // LeaseAnswer (to the asking node)
  kPeerLeaseGone = 77,  // PeerLeaseGone: a worker leased to a caller on the receiving
                        // node died (LeaseGone, to be passed on)
  kPeerHolds = 78,      // PeerHolds: objects the receiving node owns that the sender's
                        // processes began or ceased to hold; copies to free
  kPeerHoldsAck = 79,   // PeerHoldsAck (to the sender of a PeerHolds with borrows)
  kPullElsewhere = 80,  // PullElsewhere: the answer to a PullObject that waited for its
                        // turn: pull the object from that node instead
  // dashboard -> raylet, on the peers' socket after a PeerHello with the token
  kReadLogs = 67,     // LogsRequest -> kLogsReply (LogsReply): this node's log files
  kLogsReply = 68,
};

struct Envelope {
  uint32_t version = kProtocolVersion;
  MessageType type{};
  uint64_t request_id = 0;
  std::string_view body;  // points into the decoded frame
};

// A msgpack output buffer that is the frame itself: no copy out of a staging buffer.
struct FrameBuffer {
  std::string bytes;
  void write(const char* data, size_t n) { bytes.append(data, n); }
};
void PackHeader(msgpack::packer<FrameBuffer>& pk, MessageType type, uint64_t request_id);

std::string Encode(MessageType type, uint64_t request_id, const std::string& body);
template <typename T>
std::string Encode(MessageType type, uint64_t request_id, const T& body) {
  FrameBuffer buf;
  msgpack::packer<FrameBuffer> pk(buf);
  PackHeader(pk, type, request_id);
  pk.pack(body);
  return std::move(buf.bytes);
}

Result<Envelope> DecodeEnvelope(std::string_view frame);

// A kBatch frame holding `frames` (each a whole frame, in order), and its inverse:
// the views point into `body`. Batches do not nest.
std::string EncodeBatch(const std::vector<std::string>& frames);
Result<std::vector<std::string_view>> DecodeBatch(std::string_view body);

// Decodes a body into T; InvalidArgument (naming T's role) on any mismatch.
Status DecodeBodyInto(std::string_view body, const char* what,
                      const std::function<void(const msgpack::object&)>& convert);

// Message structs (MSGPACK_DEFINE_ARRAY) must arrive with exactly their field
// count: msgpack would otherwise default missing fields and ignore extra ones.
template <typename T, typename = void>
struct IsMessage : std::false_type {};
template <typename T>
struct IsMessage<T, std::void_t<decltype(std::declval<T&>().msgpack_unpack(
                        std::declval<const msgpack::object&>()))>> : std::true_type {};

template <typename T>
uint32_t FieldCount() {
  static const uint32_t count = [] {
    msgpack::sbuffer buf;
    msgpack::pack(buf, T{});
    return msgpack::unpack(buf.data(), buf.size()).get().via.array.size;
  }();
  return count;
}

template <typename T>
Result<T> DecodeBody(std::string_view body, const char* what) {
  T out{};
  Status st = DecodeBodyInto(body, what, [&](const msgpack::object& o) {
    if constexpr (IsMessage<T>::value) {
      if (o.type != msgpack::type::ARRAY || o.via.array.size != FieldCount<T>()) {
        throw msgpack::type_error();
      }
    }
    o.convert(out);
  });
  if (!st.ok()) return st;
  return out;
}

// ---------------------------------------------------------------------------
// Bodies.

struct RegisterClient {
  std::string worker_id;
  int32_t pid = 0;
  bool is_driver = false;
  JobId job_id;  // drivers (nil: a worker)
  std::string direct_endpoint;  // workers: where callers reach the actor it may host
  MSGPACK_DEFINE_ARRAY(worker_id, pid, is_driver, job_id, direct_endpoint);
};

struct RegisterReply {
  std::string node_id;
  std::string session_dir;
  std::string node_address;  // ip of this node
  std::string error;         // non-empty: refused
  std::string store_tag;     // names this node's shared-memory segments
  int32_t raylet_pid = 0;
  uint64_t store_capacity = 0;  // the object store's capacity in bytes
  // The cluster token (over the node's private socket): the keys of the encrypted
  // sockets between a caller and an actor on another node (transport/curve.h).
  std::string token;
  MSGPACK_DEFINE_ARRAY(node_id, session_dir, node_address, error, store_tag, raylet_pid,
                       store_capacity, token);
};

// A worker, asked (kListenTcp), listens on tcp too (always encrypted, whatever the
// address: curve.h's keys), so that callers on other nodes call it directly: the
// actor it hosts, or tasks under a lease.
struct TcpEndpoint {
  std::string endpoint;  // "": it cannot listen (no address, or the bind failed)
  MSGPACK_DEFINE_ARRAY(endpoint);
};

using ray::internal::TaskArg;

// A task as the runtime tracks it: the plugin's request (ray/wire.h) with its id, its
// job, its plugin and its submitter. Encoded as one flat array, the request's fields
// among the others in the order below.
struct TaskSpec : ray::internal::TaskRequest {
  TaskId task_id;
  JobId job_id;
  std::string plugin;  // content hash of the plugin
  std::string caller;  // worker id of the submitter
  // Object ids the task's arguments hold (refs passed, serialized or nested, and for
  // an actor call the actor's handle): kept while the task is pending.
  std::vector<ObjectId> contained_refs;
  // The job's default for the actors this task creates (and theirs): detached.
  bool actors_detached = false;
  MSGPACK_DEFINE_ARRAY(task_id, job_id, kind, plugin, function, args, num_returns, resources,
                       max_retries, max_calls, max_restarts, actor_id, actor_name, caller,
                       contained_refs, placement_group_id, bundle_index, detached,
                       ray_namespace, runtime_env, max_concurrency,
                       placement_group_capture_child_tasks, actors_detached);
};

// Why a task (submitted, forwarded, or sent to an actor directly) is refused, or Ok.
// Nothing relies on the sender for this.
Status CheckTaskSpec(const TaskSpec& t);

// Uses one of task `t`'s retries (max_retries; -1: no limit): false if none is left.
inline bool TakeRetry(TaskSpec& t) {
  if (t.max_retries == 0) return false;
  if (t.max_retries > 0) --t.max_retries;
  return true;
}

// Why a resource request (a task's, an actor's, a lease's) is refused, or Ok. Ray's
// rules: a name is not empty; an amount is finite and not negative; an amount above 1
// is a whole number; a fraction is at least 0.0001 (the unit resources count in). A
// zero amount asks for nothing (submitters drop it). The message names the resource
// and the amount. (A zero CPU amount is not the default of 1: it is kept.)
Status CheckResourceRequest(const std::map<std::string, double>& resources);

enum class ObjectState : uint8_t { kMissing = 0, kInline = 1, kShared = 2, kError = 3 };

// An object as it travels: inline bytes, or the name and size of a shared-memory
// segment on this node, or an error (data = msgpack ErrorInfo).
struct ObjectPayload {
  ObjectId id;
  uint8_t state = 0;  // ObjectState
  std::string data;
  std::string shm_name;
  uint64_t size = 0;
  MSGPACK_DEFINE_ARRAY(id, state, data, shm_name, size);
};

struct GetRequest {
  std::vector<ObjectId> ids;
  int64_t timeout_ms = -1;
  // The node to pull those not here from first (a caller's, for the arguments of its
  // call; "": where the cluster's directory says).
  std::string from_node;
  MSGPACK_DEFINE_ARRAY(ids, timeout_ms, from_node);
};

struct GetReply {
  std::vector<ObjectPayload> objects;  // state kMissing: not ready in time
  MSGPACK_DEFINE_ARRAY(objects);
};

struct WaitRequest {
  std::vector<ObjectId> ids;
  uint32_t num = 1;
  int64_t timeout_ms = -1;
  MSGPACK_DEFINE_ARRAY(ids, num, timeout_ms);
};

struct WaitReply {
  std::vector<uint8_t> ready;
  MSGPACK_DEFINE_ARRAY(ready);
};

struct PutRequest {
  ObjectPayload object;
  std::vector<ObjectId> contained_refs;  // object ids the value holds (nested refs)
  MSGPACK_DEFINE_ARRAY(object, contained_refs);
};

// (The raylet packs it field by field, Raylet::SendExecute: a field added here is
// added there too.)
struct ExecuteTask {
  TaskSpec spec;
  std::vector<ObjectPayload> resolved;  // one per ref argument, in order
  std::string plugin_path;
  // The GPUs the task (or the actor, for life) holds; the worker sets
  // CUDA_VISIBLE_DEVICES to them ("" when empty) while the task runs.
  std::vector<int32_t> gpu_ids;
  // A direct call under a lease: the worker's lease count when the lease was granted
  // (LeaseGate::lease). A worker runs it only in that lease: a call that comes after
  // the lease ended is bounced, even if the worker is leased to the same caller again
  // (the caller counts it as the earlier lease's, start_gate.h). The raylet's: 0.
  uint64_t lease = 0;
  // A direct call from a caller on another node: that node's id ("": the worker's
  // own node, or the raylet's call). Results too large to travel inline then go to
  // the worker's raylet (the caller's node pulls them from there), not into a
  // shared-memory segment only this node can read; arguments the call does not carry
  // are pulled from the caller's node first.
  std::string caller_node;
  MSGPACK_DEFINE_ARRAY(spec, resolved, plugin_path, gpu_ids, lease, caller_node);
};

struct TaskDone {
  TaskId task_id;
  std::vector<ObjectPayload> returns;
  bool exit_after = false;  // max_calls reached: the worker exits next
  int64_t start_ms = 0;     // wall clock: when the worker began and ended the task
  int64_t end_ms = 0;       // (0: not reported)
  // Object ids the results hold (nested refs), each held by every result. A direct
  // call's results that hold refs are put in the raylet by the worker (with their
  // refs, before it answers) and come back here kMissing.
  std::vector<ObjectId> contained_refs;
  // How long the task's body ran and its results took to store, in microseconds (-1:
  // not reported), without what came before (loading its plugin, fetching its
  // arguments): callers and raylets judge by it which tasks are short enough to queue
  // behind others (scheduler/task_durations.h).
  int64_t run_us = -1;
  MSGPACK_DEFINE_ARRAY(task_id, returns, exit_after, start_ms, end_ms, contained_refs, run_us);
};

// A client's changes of what it holds (runtime/raylet/object_holds.h has the
// protocol), handled in this order: objects it borrows from now on, objects it
// created and no longer refers to (the owner lets go), borrowed objects it no longer
// refers to.
struct FreeObjects {
  std::vector<ObjectId> ids;
  // Of those, shared-memory objects whose segment the client keeps to fill again:
  // the store forgets them without removing the segment (their ids never left it).
  std::vector<ObjectId> keep_segments;
  std::vector<ObjectId> borrowed;
  std::vector<ObjectId> unborrowed;
  MSGPACK_DEFINE_ARRAY(ids, keep_segments, borrowed, unborrowed);
};

// Tasks the raylet sent to a worker ahead of time and takes back (the worker blocked
// in a Get or Wait, and they might be what it waits for).
struct RevokeTasks {
  std::vector<TaskId> task_ids;
  MSGPACK_DEFINE_ARRAY(task_ids);
};

// Actor calls a worker ran for callers that sent them directly: the raylet never saw
// them, so the worker reports them for the state API and timeline.
struct TaskEventRecord {
  TaskId task_id;
  JobId job_id;
  std::string function;
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  bool failed = false;
  MSGPACK_DEFINE_ARRAY(task_id, job_id, function, start_ms, end_ms, failed);
};

struct TaskEvents {
  std::vector<TaskEventRecord> events;
  MSGPACK_DEFINE_ARRAY(events);
};

// To a client that calls an actor directly: its worker is gone (the actor died, or
// restarts elsewhere). Calls still in flight fail; later ones go through the raylet.
struct ActorGone {
  ActorId actor_id;
  std::string cause;
  MSGPACK_DEFINE_ARRAY(actor_id, cause);
};

// A worker leased to a caller, which sends it normal tasks directly until the lease
// ends (the worker returns it when idle, or dies).
struct LeaseGranted {
  std::string caller;  // the caller's identity (as on the raylet's socket)
  // How long the worker waits for the caller's first call before it returns the
  // lease (at least its usual idle time; longer for a caller on another node).
  int32_t first_call_ms = 0;
  MSGPACK_DEFINE_ARRAY(caller, first_call_ms);
};

// A caller asks for a worker to run its normal tasks of one resource shape directly.
struct LeaseRequest {
  std::map<std::string, double> resources;
  JobId job_id;
  MSGPACK_DEFINE_ARRAY(resources, job_id);
};

// A leased worker's start gate (start_gate.h) as the raylet read it when it granted
// the lease, while the worker was idle: where the holder's starts begin, and the
// worker's lease count (read later, the worker may have ended the lease meanwhile).
struct LeaseGate {
  bool valid = false;  // false: the raylet has no gate for it (no calls queue there)
  uint64_t starts = 0;
  uint64_t lease = 0;
  MSGPACK_DEFINE_ARRAY(valid, starts, lease);
};

struct LeaseReply {
  enum Outcome : uint8_t {
    kNotNow = 0,   // no idle worker now (one may be starting), or tasks wait in the queue
    kGranted = 1,  // `endpoint` is the worker's direct socket
    kBusy = 2,     // every resource of the shape is taken
  };
  uint8_t outcome = kNotNow;
  std::string endpoint;
  LeaseGate gate;  // kGranted
  // kGranted: the worker is on another node (`endpoint` is its encrypted tcp socket,
  // after kListenTcp); it has no gate the caller can read.
  bool encrypted = false;
  MSGPACK_DEFINE_ARRAY(outcome, endpoint, gate, encrypted);
};

// A lease granted unasked, to a caller that wanted one (kLeaseWanted).
struct LeaseOffer {
  std::map<std::string, double> resources;  // as in the caller's LeaseRequest
  std::string endpoint;                     // the worker's direct socket
  LeaseGate gate;
  MSGPACK_DEFINE_ARRAY(resources, endpoint, gate);
};

// Where a caller may send its calls to an actor.
struct ActorRouteRequest {
  ActorId actor_id;
  MSGPACK_DEFINE_ARRAY(actor_id);
};

struct ActorRouteReply {
  enum Route : uint8_t {
    kRaylet = 0,  // through the raylet, for now (ask again later)
    kDirect = 1,  // straight to `endpoint`, the actor's worker (tcp:// if it is on
                  // another node)
  };
  uint8_t route = kRaylet;
  std::string endpoint;
  int32_t max_task_retries = 0;  // kDirect: the actor's (-1: no limit)
  // kDirect: the endpoint is an actor's encrypted tcp socket (it is on another node;
  // TcpEndpoint), not a worker's socket on this node (ipc, or plain loopback tcp).
  bool encrypted = false;
  MSGPACK_DEFINE_ARRAY(route, endpoint, max_task_retries, encrypted);
};

// A worker running a direct call finds the plugin's copy on this node.
struct PluginPathRequest {
  std::string hash;  // content hash (hex)
  MSGPACK_DEFINE_ARRAY(hash);
};

struct PluginPathReply {
  std::string path;
  std::string error;  // non-empty: not found
  MSGPACK_DEFINE_ARRAY(path, error);
};

// A caller's direct call to a worker on another node (under a lease, or its actor)
// left results in that node's store: its raylet learns where they are (and, for a
// normal task, its lineage, to make them again if that node dies).
struct RanElsewhere {
  std::string endpoint;  // the worker's tcp endpoint, as the caller's raylet gave it
  TaskSpec spec;         // normal tasks: as sent; actor calls: its id, kind and num_returns
  MSGPACK_DEFINE_ARRAY(endpoint, spec);
};

struct LeaseGone {
  std::string endpoint;  // the worker's direct endpoint
  std::string cause;
  MSGPACK_DEFINE_ARRAY(endpoint, cause);
};

struct CallRequest {
  std::string op;
  std::string body;
  std::string token;  // the cluster token (GCS calls)
  MSGPACK_DEFINE_ARRAY(op, body, token);
};

struct CallReply {
  std::string error;  // non-empty: failed
  std::string body;
  MSGPACK_DEFINE_ARRAY(error, body);
};

struct LogLines {
  std::string source;  // "pid=1234" or similar
  std::string text;
  bool is_stderr = false;
  MSGPACK_DEFINE_ARRAY(source, text, is_stderr);
};

// Node records as the GCS keeps them.
// Work waiting on a node for resources: `count` tasks or actors of `shape`. The
// autoscaler adds nodes for it. `infeasible`: no node of the cluster could ever fit it.
struct ResourceDemand {
  std::map<std::string, double> shape;
  int64_t count = 0;
  bool infeasible = false;
  MSGPACK_DEFINE_ARRAY(shape, count, infeasible);
};

struct NodeInfo {
  std::string node_id;
  std::string address;        // node ip
  std::string raylet_socket;  // ipc:// endpoint on that node
  std::string session_dir;
  std::map<std::string, double> total;
  std::map<std::string, double> available;
  std::string state;  // ALIVE or DEAD
  int64_t last_heartbeat_ms = 0;
  int32_t pid = 0;
  std::string token;  // on registration only; never stored
  std::string peer_address;  // tcp:// endpoint where other raylets reach this one
  std::vector<ResourceDemand> load;  // as of its last heartbeat; not stored
  MSGPACK_DEFINE_ARRAY(node_id, address, raylet_socket, session_dir, total, available, state,
                       last_heartbeat_ms, pid, token, peer_address, load);
};

struct Heartbeat {
  std::string node_id;
  std::map<std::string, double> available;
  std::string token;
  std::vector<ResourceDemand> load;
  MSGPACK_DEFINE_ARRAY(node_id, available, token, load);
};

struct GcsReply {
  std::string error;
  // Heartbeat replies: how often a GCS server started on the cluster's tables (a
  // raylet that sees it change tells the new one what it holds).
  int64_t gcs_starts = 0;
  MSGPACK_DEFINE_ARRAY(error, gcs_starts);
};

// Raylet to raylet.

struct PeerHello {
  std::string node_id;
  std::string token;
  MSGPACK_DEFINE_ARRAY(node_id, token);
};

// A task another node placed here. Its missing arguments are pulled from the
// origin node, which knows where they are.
struct ForwardTask {
  TaskSpec spec;
  std::string origin_node;
  MSGPACK_DEFINE_ARRAY(spec, origin_node);
};

// The dashboard asks a node for its logs (runtime/base/log_files.h): `name` ""
// lists them, or with `search` searches them all; else reads the log `name`.
struct LogsRequest {
  std::string name;
  std::string search;
  uint64_t max_lines = 1000;
  MSGPACK_DEFINE_ARRAY(name, search, max_lines);
};

struct LogsReply {
  int32_t code = 0;     // a StatusCode; 0: ok
  std::string error;    // the message when not ok
  std::string json;     // the answer of ListLogs, SearchLogs or ReadLog
  MSGPACK_DEFINE_ARRAY(code, error, json);
};

struct PullObject {
  ObjectId object_id;
  MSGPACK_DEFINE_ARRAY(object_id);
};

// A node serving an object to many nodes at once sends those waiting for their turn
// to a node it has just sent the whole object to (which serves it once its copy is
// complete): an object read everywhere spreads as a tree, not from one node.
struct PullElsewhere {
  ObjectId object_id;
  std::string node_id;  // the node to pull it from
  MSGPACK_DEFINE_ARRAY(object_id, node_id);
};

// Part of an object. Inline and error objects come in one chunk, in `data`;
// shared-memory objects in chunks of kChunkBytes, in order, `total` bytes in all, at
// most kChunkWindow of them sent ahead of the receiver's kChunkAck, each chunk's bytes
// in the message's second part (not copied into `data`, which stays empty).
constexpr size_t kChunkBytes = 8 << 20;
constexpr size_t kChunkWindow = 4;
struct ObjectChunk {
  ObjectId object_id;
  uint8_t state = 0;  // ObjectState of the object at the source
  uint64_t total = 0;
  uint64_t offset = 0;
  std::string data;
  MSGPACK_DEFINE_ARRAY(object_id, state, total, offset, data);
};

// To the node hosting an actor: kill it (no_restart: for good, else as if its worker
// died, so that it restarts if it may).
struct ActorKill {
  ActorId actor_id;
  bool no_restart = true;
  MSGPACK_DEFINE_ARRAY(actor_id, no_restart);
};

// Direct calls across nodes. The caller's node asks the actor's node (RouteAsk) once
// none of the caller's calls to the actor is unfinished anywhere; the actor's node
// answers with its worker's tcp endpoint if the actor is alive there and none of the
// caller's calls waits there ("": not now), and tells the caller's node
// (PeerActorGone) when that worker goes.
struct RouteAsk {
  uint64_t ask = 0;  // the asking node's number for it
  ActorId actor_id;
  std::string caller;       // the caller's peer id on the asking node
  std::string origin_node;  // the asking node's id
  MSGPACK_DEFINE_ARRAY(ask, actor_id, caller, origin_node);
};

struct RouteAnswer {
  uint64_t ask = 0;
  std::string endpoint;  // "": not now
  int32_t max_task_retries = 0;
  MSGPACK_DEFINE_ARRAY(ask, endpoint, max_task_retries);
};

struct PeerActorGone {
  ActorId actor_id;
  std::string caller;
  std::string cause;
  MSGPACK_DEFINE_ARRAY(actor_id, caller, cause);
};

// Leases across nodes. A caller's node asks a node that fits a shape it cannot, or
// has room for one it has none for now (LeaseAsk); that node leases an idle worker to the caller and answers with the
// worker's tcp endpoint (LeaseAnswer), and tells the caller's node (PeerLeaseGone) if
// the worker dies while leased.
struct LeaseAsk {
  uint64_t ask = 0;  // the asking node's number for it
  LeaseRequest request;
  std::string caller;       // the caller's peer id on the asking node
  std::string origin_node;  // the asking node's id
  MSGPACK_DEFINE_ARRAY(ask, request, caller, origin_node);
};

struct LeaseAnswer {
  uint64_t ask = 0;
  uint8_t outcome = LeaseReply::kNotNow;
  std::string endpoint;  // kGranted: the worker's tcp endpoint
  MSGPACK_DEFINE_ARRAY(ask, outcome, endpoint);
};

struct PeerLeaseGone {
  std::string caller;
  LeaseGone gone;
  MSGPACK_DEFINE_ARRAY(caller, gone);
};

// Holds across nodes (runtime/raylet/peer_holds.h). The node that counts an object's
// holders (its home: see HomeTag) counts each other node whose processes, tasks or
// objects hold it as one holder.
struct PeerHolds {
  std::string from_node;
  uint64_t seq = 0;  // non-zero when `borrowed` is not empty: acknowledged with PeerHoldsAck
  std::vector<ObjectId> borrowed;    // home here: the sender holds them from now on
  std::vector<ObjectId> unborrowed;  // home here: the sender holds them no more
  std::vector<ObjectId> free_copies; // freed by their home: drop copies, tell whom you served
  MSGPACK_DEFINE_ARRAY(from_node, seq, borrowed, unborrowed, free_copies);
};

struct PeerHoldsAck {
  std::string from_node;
  uint64_t seq = 0;  // the borrows of this message and of every one before are counted
  MSGPACK_DEFINE_ARRAY(from_node, seq);
};

struct TaskFinished {
  TaskId task_id;
  std::string node_id;  // where the results are
  // Its small results (inline values and errors, up to kFinishedReturnsLimit bytes in
  // all), so that the origin has them without pulling.
  std::vector<ObjectPayload> returns;
  MSGPACK_DEFINE_ARRAY(task_id, node_id, returns);
};
constexpr size_t kFinishedReturnsLimit = 1 << 20;

}  // namespace ray::protocol
