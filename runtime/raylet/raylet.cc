#include "runtime/raylet/raylet.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <deque>
#include <list>
#include <memory>
#include <set>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "runtime/base/logging.h"
#include "runtime/base/util.h"
#include "runtime/gcs/gcs_client.h"
#include "runtime/ids/ids.h"
#include "runtime/object_store/object_store.h"
#include "runtime/raylet/worker_pool.h"
#include "runtime/scheduler/resources.h"
#include "runtime/transport/transport.h"

namespace ray::raylet {

using protocol::MessageType;
using protocol::ObjectPayload;
using protocol::ObjectState;
using protocol::TaskSpec;
using scheduler::ResourceSet;
namespace ri = ray::internal;

namespace {

std::string Hex(const std::string& bin) { return ToHex(bin); }

bool AllObjectIds(const std::vector<std::string>& ids) {
  return std::all_of(ids.begin(), ids.end(),
                     [](const std::string& id) { return id.size() == ObjectId::kSize; });
}

// Why a submitted task is refused, or Ok. CoreClient::Submit checks the same; the
// raylet does not rely on its clients for it.
Status CheckTaskSpec(const TaskSpec& t) {
  if (t.task_id.size() != TaskId::kSize) {
    return Status::InvalidArgument(fmt::format("a {}-byte task id", t.task_id.size()));
  }
  if (t.num_returns == 0 || t.num_returns > 1000) {
    return Status::InvalidArgument(fmt::format("{} returns", t.num_returns));
  }
  if (t.kind > ri::kActorTask) return Status::InvalidArgument(fmt::format("kind {}", t.kind));
  // The hash names a file under the session's plugins/ dir: hex only.
  if (t.plugin.empty() || t.plugin.find_first_not_of("0123456789abcdef") != std::string::npos) {
    return Status::InvalidArgument("plugin hash '" + t.plugin + "' is not hex");
  }
  for (const auto& a : t.args) {
    if (a.is_ref && a.data.size() != ObjectId::kSize) {
      return Status::InvalidArgument(fmt::format("a {}-byte ObjectRef argument", a.data.size()));
    }
  }
  for (const auto& [name, amount] : t.resources) {
    if (!std::isfinite(amount) || amount < 0) {
      return Status::InvalidArgument(fmt::format("resource {} = {}", name, amount));
    }
  }
  return Status::Ok();
}

// <session>/sockets/raylet, unless that exceeds the 107-byte limit of a Unix socket
// path: then a private per-user directory under /tmp, named by the session.
std::string RayletSocketPath(const std::string& session_dir) {
  std::string path = session_dir + "/sockets/raylet";
  if (path.size() < 100) return path;
  std::string dir = "/tmp/ray-sockets-" + std::to_string(::getuid());
  ::mkdir(dir.c_str(), 0700);
  return dir + "/" + ContentHash(session_dir) + ".raylet";
}

// Something waiting for objects: a client's Get or Wait, or a task's arguments.
struct Waiter {
  enum Kind { kGet, kWait, kTask } kind;
  std::string peer;
  uint64_t request_id = 0;
  std::vector<ObjectId> ids;
  size_t needed = 0;  // objects still missing before this waiter completes
  int64_t deadline_ms = -1;
  TaskSpec task;  // kTask
  bool done = false;
};

struct Client {
  std::string peer;
  bool is_driver = false;
  bool registered = false;
  int pid = 0;
  std::string job_id;
  // Workers.
  enum State { kStarting, kIdle, kBusy, kActor } state = kStarting;
  std::optional<TaskSpec> running;
  ResourceSet held;      // subtracted from the node's available resources
  bool blocked = false;  // in a Get for objects not yet ready; CPU lent back
  std::string actor_id;
  std::map<std::string, int> calls;  // function -> times run (max_calls)
  std::string last_job;              // for log routing
};

struct Actor {
  enum State { kPending, kAlive, kRestarting, kDead } state = kPending;
  TaskSpec creation;
  std::string worker;  // peer
  std::deque<TaskSpec> queue;     // not yet sent, in submission order
  std::deque<TaskSpec> inflight;  // sent, in order
  std::shared_ptr<Waiter> head_waiter;  // the queue's head waits for its arguments
  int restarts = 0;
  std::string death_cause;
};

struct StoredObject {
  ObjectState state;
  std::string data;  // inline bytes or error info
  std::string segment;
  uint64_t size = 0;
};

class Raylet {
 public:
  explicit Raylet(const RayletOptions& o)
      : options_(o),
        node_id_(NodeId::FromRandom()),
        store_({ContentHash(o.session_dir).substr(0, 8) + ToHex(RandomBytes(3)),
                o.object_store_bytes}),
        gcs_(o.gcs_address, o.token, 2000) {
    total_ = ResourceSet::FromDoubles(o.resources);
    available_ = total_;
    cpus_ = static_cast<int>(o.resources.count("CPU") ? o.resources.at("CPU") : 1);
    max_workers_ = o.max_workers > 0 ? o.max_workers : std::max(16, 4 * cpus_);
  }

  Status Run(const std::atomic<bool>& stop);

 private:
  // --- messages
  void HandleFrame(const transport::Incoming& in);
  void HandleRegister(const std::string& peer, uint64_t req, std::string_view body);
  void HandleSubmit(const std::string& peer, std::string_view body);
  void HandleGet(Client& c, uint64_t req, std::string_view body);
  void HandleWait(Client& c, uint64_t req, std::string_view body);
  void HandlePut(Client& c, uint64_t req, std::string_view body);
  void HandleTaskDone(Client& c, std::string_view body);
  void HandleCall(Client& c, uint64_t req, std::string_view body);
  void Send(const std::string& peer, MessageType type, uint64_t req, const std::string& body) {
    router_.Send(peer, protocol::Encode(type, req, body));
  }
  template <typename T>
  void SendMsg(const std::string& peer, MessageType type, uint64_t req, const T& body) {
    router_.Send(peer, protocol::Encode(type, req, body));
  }

  // --- objects
  void StoreObject(const ObjectPayload& p);
  void StoreError(const ObjectId& id, const ri::ErrorInfo& e);
  void FailTask(const TaskSpec& t, ri::ErrorKind kind, const std::string& type,
                const std::string& message);
  ObjectPayload PayloadOf(const ObjectId& id) const;
  bool Ready(const ObjectId& id) const { return objects_.count(id) > 0; }
  void AddWaiter(const std::shared_ptr<Waiter>& w);
  void CompleteWaiter(const std::shared_ptr<Waiter>& w);
  void ExpireWaiters();

  // --- tasks and workers
  void Enqueue(TaskSpec t);
  void OnArgsReady(TaskSpec t);
  void Dispatch();
  ResourceSet ResourcesOf(const TaskSpec& t) const;
  void SendExecute(Client& w, const TaskSpec& t);
  void StartWorkers(size_t wanted);
  void OnWorkerExit(const WorkerPool::Exit& e);
  void Unblock(Client& c);

  // --- actors
  void SubmitActorTask(TaskSpec t);
  void PumpActor(Actor& a);
  void OnActorDied(const std::string& actor_id, const std::string& cause);
  // Kills an actor for good, whether it runs on a worker or still waits to be placed.
  void KillActor(const std::string& actor_id);

  // --- jobs and periodic work
  void FinishJob(const std::string& job_id);
  void Periodic();
  std::string PluginPath(const std::string& hash);
  void ForwardLogs(const std::string& worker, int pid, std::string_view text, bool is_stderr);
  std::string Where(int pid) const {
    return fmt::format("node {}, pid {}", options_.node_ip, pid);
  }

  RayletOptions options_;
  NodeId node_id_;
  std::string endpoint_;
  transport::Router router_;
  std::unique_ptr<WorkerPool> pool_;
  object_store::ObjectStore store_;
  gcs::GcsClient gcs_;
  ResourceSet total_, available_;
  int cpus_ = 1;
  int max_workers_ = 16;
  size_t starting_ = 0;

  std::unordered_map<std::string, Client> clients_;
  std::deque<std::string> idle_;
  std::unordered_map<ObjectId, StoredObject, IdHash> objects_;
  std::unordered_map<ObjectId, std::vector<std::shared_ptr<Waiter>>, IdHash> waiting_on_;
  std::multimap<int64_t, std::weak_ptr<Waiter>> deadlines_;
  // Tasks whose arguments are ready, grouped by resource shape, FIFO within a shape.
  std::map<std::string, std::pair<ResourceSet, std::deque<TaskSpec>>> ready_;
  size_t num_ready_ = 0;
  std::unordered_map<std::string, Actor> actors_;
  std::set<std::string> finished_jobs_;
  std::set<std::string> known_plugins_;
  int64_t next_periodic_ms_ = 0;
  int64_t next_heartbeat_ms_ = 0;
  bool gcs_warned_ = false;
};

// ---------------------------------------------------------------------------

Status Raylet::Run(const std::atomic<bool>& stop) {
  std::string socket_path = RayletSocketPath(options_.session_dir);
  ::unlink(socket_path.c_str());
  RAY_ASSIGN_OR_RETURN(endpoint_, router_.Bind("ipc://" + socket_path));
  pool_ = std::make_unique<WorkerPool>(
      WorkerPoolOptions{SelfExecutable(), endpoint_, options_.session_dir, node_id_.Hex()},
      [this](const std::string& w, int pid, std::string_view text, bool err) {
        ForwardLogs(w, pid, text, err);
      });

  protocol::NodeInfo info;
  info.node_id = node_id_.Binary();
  info.address = options_.node_ip;
  info.raylet_socket = endpoint_;
  info.session_dir = options_.session_dir;
  info.total = total_.ToDoubles();
  info.available = available_.ToDoubles();
  info.pid = ::getpid();
  RAY_RETURN_IF_ERROR(gcs_.RegisterNode(info));
  RAY_LOG_INFO("raylet {} serving at {} with resources {}", node_id_.Hex(), endpoint_,
               total_.ToString());
  StartWorkers(options_.prestart_workers >= 0 ? options_.prestart_workers : cpus_);
  if (!options_.ready_file.empty()) RAY_RETURN_IF_ERROR(WriteFile(options_.ready_file, endpoint_));

  std::vector<zmq::pollitem_t> items;
  while (!stop.load()) {
    items.clear();
    items.push_back({router_.socket().handle(), 0, ZMQ_POLLIN, 0});
    pool_->AddPollItems(items);
    int64_t timeout = 100;
    if (!deadlines_.empty()) {
      timeout = std::clamp<int64_t>(deadlines_.begin()->first - MonoMillis(), 0, 100);
    }
    try {
      zmq::poll(items.data(), items.size(), std::chrono::milliseconds(timeout));
    } catch (const zmq::error_t& e) {
      if (e.num() != EINTR) RAY_LOG_WARN("poll: {}", e.what());
    }
    // Bounded batch per turn so pipes and timers stay serviced under load.
    for (int i = 0; i < 4096; ++i) {
      auto in = router_.Recv(0);
      if (!in) break;
      HandleFrame(*in);
    }
    pool_->ReadOutput();
    for (const auto& e : pool_->Reap()) OnWorkerExit(e);
    ExpireWaiters();
    Dispatch();
    if (MonoMillis() >= next_periodic_ms_) Periodic();
  }
  RAY_LOG_INFO("raylet stopping");
  // Briefly: with `ray run` interrupted, the GCS may be gone already.
  (void)gcs::GcsClient(options_.gcs_address, options_.token, 300).UnregisterNode(node_id_.Binary());
  pool_.reset();  // kills workers
  object_store::UnlinkAllSegments(store_.tag());
  ::unlink(socket_path.c_str());
  return Status::Ok();
}

void Raylet::HandleFrame(const transport::Incoming& in) {
  auto env = protocol::DecodeEnvelope(in.frame);
  if (!env.ok()) {
    RAY_LOG_WARN("dropped frame from peer {}: {}", Hex(in.peer), env.status().message());
    return;
  }
  if (env->type == MessageType::kRegisterClient) {
    HandleRegister(in.peer, env->request_id, env->body);
    return;
  }
  auto it = clients_.find(in.peer);
  if (it == clients_.end() || !it->second.registered) {
    RAY_LOG_WARN("dropped message type {} from unregistered peer {}",
                 static_cast<int>(env->type), Hex(in.peer));
    return;
  }
  Client& c = it->second;
  switch (env->type) {
    case MessageType::kSubmitTask: return HandleSubmit(in.peer, env->body);
    case MessageType::kGetObjects: return HandleGet(c, env->request_id, env->body);
    case MessageType::kWaitObjects: return HandleWait(c, env->request_id, env->body);
    case MessageType::kPutObject: return HandlePut(c, env->request_id, env->body);
    case MessageType::kTaskDone: return HandleTaskDone(c, env->body);
    case MessageType::kCall: return HandleCall(c, env->request_id, env->body);
    case MessageType::kDisconnect:
      if (c.is_driver) FinishJob(c.job_id);
      clients_.erase(it);
      return;
    default:
      RAY_LOG_WARN("dropped unexpected message type {} from {}", static_cast<int>(env->type),
                   Hex(in.peer));
  }
}

void Raylet::HandleRegister(const std::string& peer, uint64_t req, std::string_view body) {
  auto msg = protocol::DecodeBody<protocol::RegisterClient>(body, "RegisterClient");
  if (!msg.ok()) {
    RAY_LOG_WARN("peer {}: {}", Hex(peer), msg.status().message());
    return;
  }
  protocol::RegisterReply reply{node_id_.Binary(), options_.session_dir, options_.node_ip, "",
                                store_.tag(), ::getpid()};
  auto it = clients_.find(peer);
  if (msg->is_driver) {
    Client c;
    c.peer = peer;
    c.is_driver = true;
    c.registered = true;
    c.pid = msg->pid;
    c.job_id = msg->job_id;
    clients_[peer] = std::move(c);
    RAY_LOG_INFO("driver pid {} connected for job {}", msg->pid, Hex(msg->job_id));
  } else if (it == clients_.end()) {
    reply.error = "unknown worker: workers are started by the raylet";
    RAY_LOG_WARN("refused registration of unknown worker {}", Hex(peer));
  } else {
    it->second.registered = true;
    it->second.pid = msg->pid;
    it->second.state = Client::kIdle;
    idle_.push_back(peer);
    if (starting_ > 0) --starting_;
  }
  SendMsg(peer, MessageType::kRegisterReply, req, reply);
}

// ---------------------------------------------------------------------------
// Objects.

void Raylet::StoreObject(const ObjectPayload& p) {
  if (p.id.size() != ObjectId::kSize) {
    RAY_LOG_WARN("dropped object with a {}-byte id", p.id.size());
    return;
  }
  ObjectId id = ObjectId::FromBinary(p.id);
  // The raylet frees (unlinks) what it admits, so it admits only this store's segment
  // for this id, never a name a client chose.
  if (p.state == static_cast<uint8_t>(ObjectState::kShared) &&
      p.shm_name != object_store::SegmentName(store_.tag(), id)) {
    RAY_LOG_WARN("dropped object {}: segment '{}' is not this node's segment for it", id.Hex(),
                 p.shm_name);
    return;
  }
  if (finished_jobs_.count(TaskJob(id.Task()).Binary())) {
    if (p.state == static_cast<uint8_t>(ObjectState::kShared)) object_store::UnlinkSegment(p.shm_name);
    return;
  }
  if (objects_.count(id)) {
    // A retried task or reconstructed actor may produce an object again: keep the first.
    if (p.state == static_cast<uint8_t>(ObjectState::kShared)) object_store::UnlinkSegment(p.shm_name);
    return;
  }
  StoredObject o{static_cast<ObjectState>(p.state), p.data, "", 0};
  if (o.state == ObjectState::kShared) {
    Status st = store_.Admit(id, p.shm_name, p.size);
    if (!st.ok()) {
      StoreError(id, ri::ErrorInfo{ri::kSystem, "ObjectStoreFullError", st.message(), "", ""});
      return;
    }
    o.segment = p.shm_name;
    o.size = p.size;
  } else if (o.state != ObjectState::kInline && o.state != ObjectState::kError) {
    RAY_LOG_WARN("dropped object {} in state {}", id.Hex(), p.state);
    return;
  }
  objects_.emplace(id, std::move(o));
  auto w = waiting_on_.find(id);
  if (w == waiting_on_.end()) return;
  auto waiters = std::move(w->second);
  waiting_on_.erase(w);
  for (auto& waiter : waiters) {
    if (waiter->done) continue;
    if (waiter->needed > 0) --waiter->needed;
    if (waiter->needed == 0) CompleteWaiter(waiter);
  }
}

void Raylet::StoreError(const ObjectId& id, const ri::ErrorInfo& e) {
  ObjectPayload p;
  p.id = id.Binary();
  p.state = static_cast<uint8_t>(ObjectState::kError);
  p.data = ri::Pack(e);
  StoreObject(p);
}

void Raylet::FailTask(const TaskSpec& t, ri::ErrorKind kind, const std::string& type,
                      const std::string& message) {
  TaskId tid = TaskId::FromBinary(t.task_id);
  for (uint32_t i = 1; i <= std::max<uint32_t>(t.num_returns, 1); ++i) {
    StoreError(ObjectId::ForTaskReturn(tid, i),
               ri::ErrorInfo{kind, type, message, t.function, "node " + options_.node_ip});
  }
}

ObjectPayload Raylet::PayloadOf(const ObjectId& id) const {
  ObjectPayload p;
  p.id = id.Binary();
  auto it = objects_.find(id);
  if (it == objects_.end()) return p;  // kMissing
  p.state = static_cast<uint8_t>(it->second.state);
  p.data = it->second.data;
  p.shm_name = it->second.segment;
  p.size = it->second.size;
  return p;
}

void Raylet::AddWaiter(const std::shared_ptr<Waiter>& w) {
  std::unordered_set<ObjectId, IdHash> seen;
  w->needed = 0;
  for (const auto& id : w->ids) {
    if (Ready(id) || !seen.insert(id).second) continue;
    waiting_on_[id].push_back(w);
    ++w->needed;
  }
  if (w->kind == Waiter::kWait) {
    size_t ready = w->ids.size() - w->needed;
    size_t want = std::min<size_t>(w->task.num_returns, w->ids.size());
    // Wait completes when `want` are ready: needed counts down to (missing - (want - ready)).
    w->needed = ready >= want ? 0 : want - ready;
  }
  if (w->needed == 0) {
    CompleteWaiter(w);
  } else if (w->deadline_ms >= 0) {
    deadlines_.emplace(w->deadline_ms, w);
  }
}

void Raylet::CompleteWaiter(const std::shared_ptr<Waiter>& w) {
  if (w->done) return;
  w->done = true;
  switch (w->kind) {
    case Waiter::kGet: {
      protocol::GetReply reply;
      for (const auto& id : w->ids) reply.objects.push_back(PayloadOf(id));
      SendMsg(w->peer, MessageType::kGetReply, w->request_id, reply);
      auto it = clients_.find(w->peer);
      if (it != clients_.end() && it->second.blocked) Unblock(it->second);
      break;
    }
    case Waiter::kWait: {
      protocol::WaitReply reply;
      for (const auto& id : w->ids) reply.ready.push_back(Ready(id) ? 1 : 0);
      SendMsg(w->peer, MessageType::kWaitReply, w->request_id, reply);
      break;
    }
    case Waiter::kTask:
      if (w->task.kind == ri::kActorTask) {
        auto a = actors_.find(w->task.actor_id);
        if (a != actors_.end()) {
          a->second.head_waiter.reset();
          PumpActor(a->second);
        }
      } else {
        OnArgsReady(std::move(w->task));
      }
      break;
  }
}

void Raylet::ExpireWaiters() {
  int64_t now = MonoMillis();
  while (!deadlines_.empty() && deadlines_.begin()->first <= now) {
    auto w = deadlines_.begin()->second.lock();
    deadlines_.erase(deadlines_.begin());
    if (w && !w->done) CompleteWaiter(w);  // replies with what is ready so far
  }
}

void Raylet::HandleGet(Client& c, uint64_t req, std::string_view body) {
  auto msg = protocol::DecodeBody<protocol::GetRequest>(body, "GetRequest");
  if (!msg.ok()) {
    RAY_LOG_WARN("peer {}: {}", Hex(c.peer), msg.status().message());
    return;
  }
  if (!AllObjectIds(msg->ids)) {
    RAY_LOG_WARN("peer {}: dropped a Get of ids that are not object ids", Hex(c.peer));
    return;
  }
  auto w = std::make_shared<Waiter>();
  w->kind = Waiter::kGet;
  w->peer = c.peer;
  w->request_id = req;
  for (const auto& id : msg->ids) w->ids.push_back(ObjectId::FromBinary(id));
  w->deadline_ms = msg->timeout_ms < 0 ? -1 : MonoMillis() + msg->timeout_ms;
  AddWaiter(w);
  // A worker blocked in Get lends its CPU back so that the tasks it waits for can run.
  if (!w->done && !c.is_driver && c.state == Client::kBusy && !c.blocked) {
    ResourceSet cpu = c.held.CpuOnly();
    available_.Add(cpu);
    c.held.Subtract(cpu);
    c.blocked = true;
  }
}

void Raylet::Unblock(Client& c) {
  c.blocked = false;
  if (!c.running) return;
  ResourceSet cpu = ResourcesOf(*c.running).CpuOnly();
  available_.Subtract(cpu);
  c.held.Add(cpu);
}

void Raylet::HandleWait(Client& c, uint64_t req, std::string_view body) {
  auto msg = protocol::DecodeBody<protocol::WaitRequest>(body, "WaitRequest");
  if (!msg.ok()) {
    RAY_LOG_WARN("peer {}: {}", Hex(c.peer), msg.status().message());
    return;
  }
  if (!AllObjectIds(msg->ids)) {
    RAY_LOG_WARN("peer {}: dropped a Wait on ids that are not object ids", Hex(c.peer));
    return;
  }
  auto w = std::make_shared<Waiter>();
  w->kind = Waiter::kWait;
  w->peer = c.peer;
  w->request_id = req;
  w->task.num_returns = msg->num;
  for (const auto& id : msg->ids) w->ids.push_back(ObjectId::FromBinary(id));
  w->deadline_ms = msg->timeout_ms < 0 ? -1 : MonoMillis() + msg->timeout_ms;
  AddWaiter(w);
}

void Raylet::HandlePut(Client& c, uint64_t req, std::string_view body) {
  auto msg = protocol::DecodeBody<protocol::PutRequest>(body, "PutRequest");
  if (!msg.ok()) {
    RAY_LOG_WARN("peer {}: {}", Hex(c.peer), msg.status().message());
    return;
  }
  StoreObject(msg->object);
  if (req != 0) {  // the client waits for an acknowledgement (shared-memory puts)
    ObjectId id = ObjectId::FromBinary(msg->object.id);
    auto it = objects_.find(id);
    protocol::CallReply reply;
    if (it != objects_.end() && it->second.state == ObjectState::kError &&
        msg->object.state != static_cast<uint8_t>(ObjectState::kError)) {
      reply.error = ri::Unpack<ri::ErrorInfo>(it->second.data.data(), it->second.data.size()).message;
    }
    SendMsg(c.peer, MessageType::kCallReply, req, reply);
  }
}

// ---------------------------------------------------------------------------
// Tasks.

ResourceSet Raylet::ResourcesOf(const TaskSpec& t) const {
  auto r = t.resources;
  if (t.kind == ri::kNormalTask && !r.count("CPU")) r["CPU"] = 1;
  return ResourceSet::FromDoubles(r);
}

void Raylet::HandleSubmit(const std::string& peer, std::string_view body) {
  auto spec = protocol::DecodeBody<TaskSpec>(body, "TaskSpec");
  if (!spec.ok()) {
    RAY_LOG_WARN("peer {}: {}", Hex(peer), spec.status().message());
    return;
  }
  Status valid = CheckTaskSpec(*spec);
  if (!valid.ok()) {
    RAY_LOG_WARN("peer {}: dropped task {}: {}", Hex(peer), spec->function, valid.message());
    return;
  }
  spec->caller = peer;
  if (finished_jobs_.count(spec->job_id)) return;
  if (spec->kind == ri::kActorTask) {
    SubmitActorTask(std::move(*spec));
    return;
  }
  ResourceSet need = ResourcesOf(*spec);
  if (!total_.Contains(need)) {
    FailTask(*spec, ri::kUnschedulable, "UnschedulableError",
             fmt::format("task {} requires {}, but no node in the cluster has that much "
                         "(cluster total: {})",
                         spec->function, need.ToString(), total_.ToString()));
    if (spec->kind == ri::kActorCreation) {
      Actor& a = actors_[spec->task_id];
      a.creation = *spec;
      a.state = Actor::kDead;
      a.death_cause = "the actor could not be placed: it requires " + need.ToString();
    }
    return;
  }
  if (spec->kind == ri::kActorCreation) {
    Actor& a = actors_[spec->task_id];
    a.creation = *spec;
  }
  Enqueue(std::move(*spec));
}

void Raylet::Enqueue(TaskSpec t) {
  auto w = std::make_shared<Waiter>();
  w->kind = Waiter::kTask;
  for (const auto& a : t.args) {
    if (a.is_ref) w->ids.push_back(ObjectId::FromBinary(a.data));
  }
  w->task = std::move(t);
  AddWaiter(w);
}

void Raylet::OnArgsReady(TaskSpec t) {
  if (t.kind == ri::kActorCreation) {
    auto a = actors_.find(t.task_id);
    if (a != actors_.end() && a->second.state == Actor::kDead) return;  // killed while waiting
  }
  ResourceSet need = ResourcesOf(t);
  auto& slot = ready_[need.ToString()];
  slot.first = need;
  slot.second.push_back(std::move(t));
  ++num_ready_;
}

void Raylet::StartWorkers(size_t wanted) {
  while (wanted-- > 0 && pool_->size() < static_cast<size_t>(max_workers_)) {
    auto id = pool_->Start();
    if (!id.ok()) {
      RAY_LOG_ERROR("cannot start a worker: {}", id.status().message());
      return;
    }
    Client c;
    c.peer = *id;
    clients_[*id] = std::move(c);
    ++starting_;
  }
}

void Raylet::Dispatch() {
  if (num_ready_ == 0) return;
  bool progress = true;
  while (progress && num_ready_ > 0) {
    progress = false;
    for (auto it = ready_.begin(); it != ready_.end();) {
      auto& [need, queue] = it->second;
      if (!queue.empty() && available_.Contains(need)) {
        // Skip idle entries whose worker has gone away.
        while (!idle_.empty() && (!clients_.count(idle_.front()) ||
                                  clients_.at(idle_.front()).state != Client::kIdle)) {
          idle_.pop_front();
        }
        if (idle_.empty()) break;
        Client& w = clients_.at(idle_.front());
        idle_.pop_front();
        TaskSpec t = std::move(queue.front());
        queue.pop_front();
        --num_ready_;
        available_.Subtract(need);
        w.held = need;
        if (t.kind == ri::kActorCreation) {
          w.state = Client::kActor;
          w.actor_id = t.task_id;
          Actor& a = actors_[t.task_id];
          a.worker = w.peer;
        } else {
          w.state = Client::kBusy;
        }
        SendExecute(w, t);
        w.running = std::move(t);
        progress = true;
      }
      if (queue.empty()) {
        it = ready_.erase(it);
      } else {
        ++it;
      }
    }
  }
  // Start workers for tasks that fit but found no idle worker.
  size_t runnable = 0;
  for (auto& [key, slot] : ready_) {
    if (available_.Contains(slot.first)) runnable += slot.second.size();
  }
  size_t idle = idle_.size();
  if (runnable > idle + starting_) StartWorkers(std::min<size_t>(runnable - idle - starting_, 4));
}

void Raylet::SendExecute(Client& w, const TaskSpec& t) {
  protocol::ExecuteTask msg;
  msg.spec = t;
  for (const auto& a : t.args) {
    if (a.is_ref) msg.resolved.push_back(PayloadOf(ObjectId::FromBinary(a.data)));
  }
  msg.plugin_path = PluginPath(t.plugin);
  w.last_job = t.job_id;
  SendMsg(w.peer, MessageType::kExecuteTask, 0, msg);
}

std::string Raylet::PluginPath(const std::string& hash) {
  std::string path = options_.session_dir + "/plugins/" + hash + ".so";
  if (known_plugins_.count(hash)) return path;
  if (::access(path.c_str(), R_OK) != 0) {
    auto bytes = gcs_.GetPlugin(hash);
    if (!bytes.ok()) {
      RAY_LOG_ERROR("cannot fetch plugin {}: {}", hash, bytes.status().message());
      return path;  // the worker reports the missing file as the task's error
    }
    Status st = WriteFile(path, *bytes, 0755);
    if (!st.ok()) RAY_LOG_ERROR("{}", st.message());
  }
  known_plugins_.insert(hash);
  return path;
}

void Raylet::HandleTaskDone(Client& c, std::string_view body) {
  auto msg = protocol::DecodeBody<protocol::TaskDone>(body, "TaskDone");
  if (!msg.ok()) {
    RAY_LOG_WARN("worker {}: {}", Hex(c.peer), msg.status().message());
    return;
  }
  for (const auto& p : msg->returns) StoreObject(p);

  if (c.state == Client::kActor) {
    auto a = actors_.find(c.actor_id);
    if (a == actors_.end()) return;
    Actor& actor = a->second;
    if (actor.state != Actor::kAlive) {  // the creation task finished
      bool failed = !msg->returns.empty() &&
                    msg->returns[0].state == static_cast<uint8_t>(ObjectState::kError);
      c.running.reset();
      if (failed) {
        auto it = objects_.find(ObjectId::FromBinary(msg->returns[0].id));
        std::string why = it == objects_.end() ? "" :
            ri::Unpack<ri::ErrorInfo>(it->second.data.data(), it->second.data.size()).message;
        OnActorDied(c.actor_id, "the actor's constructor failed: " + why);
        pool_->Kill(c.peer);
        return;
      }
      actor.state = Actor::kAlive;
      PumpActor(actor);
      return;
    }
    if (!actor.inflight.empty() && actor.inflight.front().task_id == msg->task_id) {
      actor.inflight.pop_front();
    }
    return;
  }

  if (!c.running || c.running->task_id != msg->task_id) {
    RAY_LOG_WARN("worker {} reported task {} it was not running", Hex(c.peer),
                 Hex(msg->task_id));
    return;
  }
  TaskSpec done = std::move(*c.running);
  c.running.reset();
  available_.Add(c.held);
  c.held = ResourceSet();
  c.blocked = false;
  int calls = ++c.calls[done.function];
  if (done.max_calls > 0 && calls >= done.max_calls) {
    Send(c.peer, MessageType::kExit, 0, "");
    c.state = Client::kStarting;  // never reused; reaped on exit
    StartWorkers(1);
    return;
  }
  c.state = Client::kIdle;
  idle_.push_front(c.peer);  // a warm worker first
}

void Raylet::OnWorkerExit(const WorkerPool::Exit& e) {
  auto it = clients_.find(e.worker_id);
  if (it == clients_.end()) return;
  Client c = std::move(it->second);
  clients_.erase(it);
  if (c.state == Client::kStarting && !c.registered && starting_ > 0) --starting_;
  if (c.state == Client::kStarting && !c.registered) {
    RAY_LOG_ERROR("worker pid {} exited before registering ({}); see logs/worker-{}.err", e.pid,
                  e.how, Hex(e.worker_id));
  }
  available_.Add(c.held);
  if (c.state == Client::kActor) {
    OnActorDied(c.actor_id, fmt::format("the actor's worker (pid {}) died: {}", e.pid, e.how));
    return;
  }
  if (!c.running) return;
  TaskSpec t = std::move(*c.running);
  if (t.max_retries != 0) {
    if (t.max_retries > 0) --t.max_retries;
    RAY_LOG_WARN("worker pid {} died ({}) running {}; retrying ({} retries left)", e.pid, e.how,
                 t.function, t.max_retries);
    OnArgsReady(std::move(t));
    return;
  }
  FailTask(t, ri::kWorkerCrashed, "WorkerCrashedError",
           fmt::format("the worker running task {} died unexpectedly ({}, pid {}) and no "
                       "retries are left",
                       t.function, e.how, e.pid));
}

// ---------------------------------------------------------------------------
// Actors.

void Raylet::SubmitActorTask(TaskSpec t) {
  auto it = actors_.find(t.actor_id);
  if (it == actors_.end() || it->second.state == Actor::kDead) {
    std::string cause = it == actors_.end() ? "no such actor on this node" : it->second.death_cause;
    FailTask(t, ri::kActorDied, "ActorDiedError",
             fmt::format("actor method {} cannot run: {}", t.function, cause));
    return;
  }
  it->second.queue.push_back(std::move(t));
  PumpActor(it->second);
}

void Raylet::PumpActor(Actor& a) {
  if (a.state != Actor::kAlive || a.head_waiter) return;
  auto w = clients_.find(a.worker);
  if (w == clients_.end()) return;
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
      AddWaiter(waiter);
      return;
    }
    SendExecute(w->second, head);
    a.inflight.push_back(std::move(head));
    a.queue.pop_front();
  }
}

void Raylet::OnActorDied(const std::string& actor_id, const std::string& cause) {
  auto it = actors_.find(actor_id);
  if (it == actors_.end()) return;
  Actor& a = it->second;
  for (const auto& t : a.inflight) {
    FailTask(t, ri::kActorDied, "ActorDiedError",
             fmt::format("actor method {} did not finish: {}", t.function, cause));
  }
  a.inflight.clear();
  a.worker.clear();
  if (a.head_waiter) a.head_waiter->done = true;
  a.head_waiter.reset();
  bool job_over = finished_jobs_.count(a.creation.job_id) > 0;
  if (!job_over && a.state != Actor::kDead &&
      (a.creation.max_restarts < 0 || a.restarts < a.creation.max_restarts)) {
    ++a.restarts;
    a.state = Actor::kRestarting;
    RAY_LOG_WARN("restarting actor {} ({} of {}): {}", Hex(actor_id), a.restarts,
                 a.creation.max_restarts, cause);
    OnArgsReady(a.creation);
    return;
  }
  a.state = Actor::kDead;
  a.death_cause = cause;
  for (const auto& t : a.queue) {
    FailTask(t, ri::kActorDied, "ActorDiedError",
             fmt::format("actor method {} cannot run: {}", t.function, cause));
  }
  a.queue.clear();
  if (!a.creation.actor_name.empty()) (void)gcs_.RemoveActor(actor_id);
}

void Raylet::KillActor(const std::string& actor_id) {
  auto it = actors_.find(actor_id);
  if (it == actors_.end() || it->second.state == Actor::kDead) return;
  Actor& a = it->second;
  a.creation.max_restarts = a.restarts;  // no restart after a kill
  if (!a.worker.empty()) {
    pool_->Kill(a.worker);  // OnWorkerExit reports the death
    return;
  }
  // Not placed (yet, or again): drop the queued creation task. One still waiting for
  // its arguments is dropped by OnArgsReady.
  for (auto& [key, slot] : ready_) {
    auto& q = slot.second;
    size_t before = q.size();
    q.erase(std::remove_if(q.begin(), q.end(),
                           [&](const TaskSpec& t) {
                             return t.kind == ri::kActorCreation && t.task_id == actor_id;
                           }),
            q.end());
    num_ready_ -= before - q.size();
  }
  OnActorDied(actor_id, "the actor was killed before it started");
}

// ---------------------------------------------------------------------------
// Calls, jobs, housekeeping.

void Raylet::HandleCall(Client& c, uint64_t req, std::string_view body) {
  auto msg = protocol::DecodeBody<protocol::CallRequest>(body, "CallRequest");
  if (!msg.ok()) {
    RAY_LOG_WARN("peer {}: {}", Hex(c.peer), msg.status().message());
    return;
  }
  protocol::CallReply reply;
  auto fail = [&](const Status& st) { reply.error = st.message(); };
  if (msg->op == "register_actor_name") {
    // body: msgpack [name, actor_id]
    auto args = protocol::DecodeBody<std::tuple<std::string, std::string>>(msg->body, "name");
    if (!args.ok()) {
      fail(args.status());
    } else {
      Status st = gcs_.RegisterNamedActor(std::get<0>(*args), std::get<1>(*args),
                                          node_id_.Binary());
      if (!st.ok()) fail(st);
    }
  } else if (msg->op == "flush_logs") {
    // Worker output written so far reaches the caller before this reply does.
    pool_->ReadOutput();
  } else if (msg->op == "get_actor") {
    auto id = gcs_.LookupNamedActor(msg->body);
    if (id.ok()) {
      reply.body = *id;
    } else {
      fail(id.status());
    }
  } else if (msg->op == "kill_actor") {
    KillActor(msg->body);
  } else if (msg->op == "cluster_resources" || msg->op == "available_resources") {
    bool total = msg->op == "cluster_resources";
    auto nodes = gcs_.GetNodes();
    if (!nodes.ok()) {
      fail(nodes.status());
    } else {
      ResourceSet sum;
      for (const auto& n : *nodes) {
        if (n.state != "ALIVE") continue;
        if (n.node_id == node_id_.Binary()) {
          sum.Add(total ? total_ : available_);
        } else {
          sum.Add(ResourceSet::FromDoubles(total ? n.total : n.available));
        }
      }
      reply.body = ri::Pack(sum.ToDoubles());
    }
  } else {
    reply.error = "unknown operation '" + msg->op + "'";
  }
  SendMsg(c.peer, MessageType::kCallReply, req, reply);
}

void Raylet::FinishJob(const std::string& job_id) {
  RAY_LOG_INFO("job {} finished; releasing its actors and objects", Hex(job_id));
  finished_jobs_.insert(job_id);
  for (auto& [id, a] : actors_) {
    if (a.creation.job_id != job_id || a.state == Actor::kDead) continue;
    if (!a.worker.empty()) pool_->Kill(a.worker);
    a.state = Actor::kDead;
    a.death_cause = "its job finished";
    if (!a.creation.actor_name.empty()) (void)gcs_.RemoveActor(id);
  }
  for (auto& [key, slot] : ready_) {
    auto& q = slot.second;
    size_t before = q.size();
    q.erase(std::remove_if(q.begin(), q.end(), [&](const TaskSpec& t) { return t.job_id == job_id; }),
            q.end());
    num_ready_ -= before - q.size();
  }
  for (auto it = objects_.begin(); it != objects_.end();) {
    if (TaskJob(it->first.Task()).Binary() == job_id) {
      store_.Free(it->first);
      it = objects_.erase(it);
    } else {
      ++it;
    }
  }
}

void Raylet::Periodic() {
  int64_t now = MonoMillis();
  next_periodic_ms_ = now + 200;
  // Drivers that vanished without saying goodbye.
  std::vector<std::string> gone;
  for (const auto& [peer, c] : clients_) {
    if (c.is_driver && !ProcessAlive(c.pid)) gone.push_back(peer);
  }
  for (const auto& peer : gone) {
    RAY_LOG_WARN("driver pid {} exited without disconnecting", clients_[peer].pid);
    FinishJob(clients_[peer].job_id);
    clients_.erase(peer);
  }
  if (now >= next_heartbeat_ms_) {
    next_heartbeat_ms_ = now + options_.heartbeat_ms;
    Status st = gcs_.Heartbeat(node_id_.Binary(), available_.ToDoubles());
    if (!st.ok() && st.message().find("unknown node") != std::string::npos) {
      protocol::NodeInfo info;
      info.node_id = node_id_.Binary();
      info.address = options_.node_ip;
      info.raylet_socket = endpoint_;
      info.session_dir = options_.session_dir;
      info.total = total_.ToDoubles();
      info.available = available_.ToDoubles();
      info.pid = ::getpid();
      st = gcs_.RegisterNode(info);
    }
    if (!st.ok() && !gcs_warned_) RAY_LOG_WARN("heartbeat to the GCS failed: {}", st.message());
    gcs_warned_ = !st.ok();
  }
}

void Raylet::ForwardLogs(const std::string& worker, int pid, std::string_view text,
                         bool is_stderr) {
  auto w = clients_.find(worker);
  std::string job = w == clients_.end() ? "" : w->second.last_job;
  protocol::LogLines lines{fmt::format("pid={}", pid), std::string(text), is_stderr};
  std::string frame = protocol::Encode(MessageType::kLogLines, 0, lines);
  for (const auto& [peer, c] : clients_) {
    if (c.is_driver && (job.empty() || c.job_id == job)) router_.Send(peer, frame);
  }
}

}  // namespace

Status RunRaylet(const RayletOptions& options, const std::atomic<bool>& stop) {
  Raylet raylet(options);
  return raylet.Run(stop);
}

}  // namespace ray::raylet
