#include "runtime/gcs/gcs_service.h"

#include <algorithm>
#include <tuple>
#include <utility>
#include <vector>

#include "runtime/base/logging.h"
#include "runtime/base/util.h"
#include "runtime/ids/ids.h"

namespace ray::gcs {

namespace {

using protocol::MessageType;

constexpr int64_t kFlushIntervalMs = 200;
constexpr int64_t kMaxSweepIntervalMs = 500;

// Ids may be raw bytes or text; logs show text as is and anything else as hex.
std::string Printable(std::string_view s) {
  bool text =
      !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
  return text ? std::string(s) : ToHex(s);
}

// Decodes a body that must be a msgpack array of exactly T's arity.
template <typename T>
Result<T> DecodeTuple(std::string_view body, const char* what) {
  T out{};
  Status st = protocol::DecodeBodyInto(body, what, [&](const msgpack::object& o) {
    if (o.type != msgpack::type::ARRAY || o.via.array.size != std::tuple_size_v<T>) {
      throw msgpack::type_error();
    }
    o.convert(out);
  });
  if (!st.ok()) return st;
  return out;
}

template <typename T>
std::string Pack(const T& value) {
  msgpack::sbuffer buf;
  msgpack::pack(buf, value);
  return std::string(buf.data(), buf.size());
}

constexpr const char* kInvalidToken = "invalid cluster token";
constexpr const char* kUnknownNode = "unknown node";

}  // namespace

GcsService::GcsService(std::unique_ptr<GcsStore> store, std::string token,
                       int64_t heartbeat_timeout_ms)
    : store_(std::move(store)),
      token_(std::move(token)),
      heartbeat_timeout_ms_(heartbeat_timeout_ms),
      sweep_interval_ms_(std::clamp<int64_t>(heartbeat_timeout_ms / 2, 10, kMaxSweepIntervalMs)) {}

Result<std::unique_ptr<GcsService>> GcsService::Create(std::unique_ptr<GcsStore> store,
                                                       std::string token,
                                                       int64_t heartbeat_timeout_ms,
                                                       int64_t now_mono_ms) {
  RAY_ASSIGN_OR_RETURN(std::vector<protocol::NodeInfo> nodes, store->LoadNodes());
  std::unique_ptr<GcsService> service(
      new GcsService(std::move(store), std::move(token), heartbeat_timeout_ms));
  size_t alive = 0;
  for (auto& info : nodes) {
    alive += info.state == kAlive;
    std::string id = info.node_id;
    service->nodes_[id] = Node{std::move(info), now_mono_ms};
  }
  if (!nodes.empty()) {
    RAY_LOG_INFO("GCS recovered {} nodes ({} ALIVE) from {}", nodes.size(), alive,
                 service->store_->path());
  }
  // The object directory as it was written (what the last flush before a crash had
  // not written is lost; raylets report new objects as they come).
  RAY_ASSIGN_OR_RETURN(auto locations, service->store_->LoadObjectLocations());
  for (auto& [object_id, node_id] : locations) {
    auto& where = service->object_locations_[object_id].nodes;
    if (std::find(where.begin(), where.end(), node_id) == where.end()) {
      where.push_back(std::move(node_id));
    }
  }
  RAY_ASSIGN_OR_RETURN(service->groups_, PlacementGroups::Load(service->store_.get()));
  RAY_ASSIGN_OR_RETURN(service->starts_, service->store_->RecordStart(NowMillis()));
  if (service->starts_.starts > 1) {
    RAY_LOG_INFO("GCS start {} on {} ({} object locations recovered)", service->starts_.starts,
                 service->store_->path(), locations.size());
  }
  service->last_sweep_ms_ = service->last_flush_ms_ = service->last_tick_ms_ = now_mono_ms;
  return service;
}

bool GcsService::TokenOk(const std::string& token) const {
  // Constant time in the token's contents.
  if (token.size() != token_.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < token.size(); ++i) diff |= token[i] ^ token_[i];
  return diff == 0;
}

std::optional<std::string> GcsService::HandleFrame(std::string_view peer, std::string_view frame) {
  auto drop = [&](const std::string& reason) -> std::optional<std::string> {
    RAY_LOG_WARN("GCS dropped a frame of {} bytes from peer {}: {}", frame.size(), ToHex(peer),
                 reason);
    return std::nullopt;
  };
  auto refuse = [&](MessageType type) {
    RAY_LOG_WARN("GCS refused a request (type {}) from peer {}: {}", static_cast<int>(type),
                 ToHex(peer), kInvalidToken);
  };
  Result<protocol::Envelope> env = protocol::DecodeEnvelope(frame);
  if (!env.ok()) return drop(env.status().message());
  const uint64_t id = env->request_id;

  switch (env->type) {
    case MessageType::kRegisterNode: {
      auto node = protocol::DecodeBody<protocol::NodeInfo>(env->body, "NodeInfo");
      if (!node.ok()) return drop(node.status().message());
      protocol::GcsReply reply;
      if (TokenOk(node->token)) {
        reply = RegisterNode(std::move(node).value());
      } else {
        refuse(env->type);
        reply.error = kInvalidToken;
      }
      return protocol::Encode(MessageType::kGcsReply, id, reply);
    }
    case MessageType::kHeartbeat:
    case MessageType::kUnregisterNode: {
      auto hb = protocol::DecodeBody<protocol::Heartbeat>(env->body, "Heartbeat");
      if (!hb.ok()) return drop(hb.status().message());
      protocol::GcsReply reply;
      if (!TokenOk(hb->token)) {
        refuse(env->type);
        reply.error = kInvalidToken;
      } else if (env->type == MessageType::kHeartbeat) {
        reply = Heartbeat(*hb);
        reply.gcs_starts = starts_.starts;
      } else {
        reply = UnregisterNode(*hb);
      }
      return protocol::Encode(MessageType::kGcsReply, id, reply);
    }
    case MessageType::kGcsCall: {
      auto call = protocol::DecodeBody<protocol::CallRequest>(env->body, "CallRequest");
      if (!call.ok()) return drop(call.status().message());
      protocol::CallReply reply;
      if (TokenOk(call->token)) {
        reply = Call(*call);
      } else {
        refuse(env->type);
        reply.error = kInvalidToken;
      }
      return protocol::Encode(MessageType::kCallReply, id, reply);
    }
    default:
      return drop("unexpected message type " + std::to_string(static_cast<int>(env->type)));
  }
}

protocol::GcsReply GcsService::RegisterNode(protocol::NodeInfo node) {
  if (node.node_id.empty()) return {"node_id is empty"};
  node.token.clear();
  node.state = kAlive;
  node.last_heartbeat_ms = NowMillis();
  if (Status st = store_->PutNode(node); !st.ok()) {
    RAY_LOG_ERROR("registering node {}: {}", Printable(node.node_id), st.message());
    return {st.message()};
  }
  RAY_LOG_INFO("node {} registered (address {}, pid {})", Printable(node.node_id), node.address,
               node.pid);
  std::string node_id = node.node_id;
  nodes_[node_id] = Node{std::move(node), MonoMillis()};
  return {};
}

protocol::GcsReply GcsService::Heartbeat(const protocol::Heartbeat& hb) {
  auto it = nodes_.find(hb.node_id);
  if (it == nodes_.end() || it->second.info.state != kAlive) return {kUnknownNode};
  Node& node = it->second;
  node.info.available = hb.available;
  node.info.load = hb.load;
  node.info.last_heartbeat_ms = NowMillis();
  node.last_seen_mono_ms = MonoMillis();
  store_->BufferHeartbeat(hb.node_id, hb.available, node.info.last_heartbeat_ms);
  return {};
}

protocol::GcsReply GcsService::UnregisterNode(const protocol::Heartbeat& hb) {
  auto it = nodes_.find(hb.node_id);
  if (it == nodes_.end()) return {kUnknownNode};
  if (it->second.info.state == kDead) return {};
  RAY_LOG_INFO("node {} unregistered; marked DEAD", Printable(hb.node_id));
  if (Status st = MarkDead(it->second); !st.ok()) return {st.message()};
  return {};
}

Status GcsService::MarkDead(Node& node) {
  node.info.state = kDead;
  for (auto it = object_locations_.begin(); it != object_locations_.end();) {
    auto& where = it->second.nodes;
    where.erase(std::remove(where.begin(), where.end(), node.info.node_id), where.end());
    it = where.empty() ? object_locations_.erase(it) : std::next(it);
  }
  groups_->OnNodeDead(node.info.node_id);
  Status st = store_->SetNodeState(node.info.node_id, kDead);
  if (st.ok()) st = store_->SetNodeActorsDead(node.info.node_id);
  if (!st.ok()) {
    RAY_LOG_ERROR("marking node {} DEAD: {}", Printable(node.info.node_id), st.message());
  }
  return st;
}

void GcsService::SweepDeadNodes(int64_t now_mono_ms) {
  for (auto& [id, node] : nodes_) {
    int64_t silent = now_mono_ms - node.last_seen_mono_ms;
    if (node.info.state != kAlive || silent <= heartbeat_timeout_ms_) continue;
    RAY_LOG_WARN("node {} missed heartbeats for {} ms; marked DEAD", Printable(id), silent);
    (void)MarkDead(node);
  }
}

void GcsService::Flush() {
  if (Status st = store_->Flush(); !st.ok()) {
    RAY_LOG_ERROR("GCS write-behind flush failed: {}", st.message());
  }
}

void GcsService::Tick(int64_t now_mono_ms) {
  if (now_mono_ms - last_tick_ms_ > heartbeat_timeout_ms_ / 2) {
    // This loop did not run (the process was stopped, or starved): the heartbeats
    // that came meanwhile wait unread in the socket. Nodes get a full timeout again
    // rather than being marked DEAD for the GCS's own silence.
    RAY_LOG_WARN("the GCS did not run for {} ms; every node gets {} ms to check in",
                 now_mono_ms - last_tick_ms_, heartbeat_timeout_ms_);
    for (auto& [id, node] : nodes_) {
      node.last_seen_mono_ms = std::max(node.last_seen_mono_ms, now_mono_ms);
    }
  }
  last_tick_ms_ = now_mono_ms;
  if (now_mono_ms - last_sweep_ms_ >= sweep_interval_ms_) {
    last_sweep_ms_ = now_mono_ms;
    SweepDeadNodes(now_mono_ms);
  }
  if (groups_->waiting()) groups_->Schedule(LiveNodes());
  if (now_mono_ms - last_flush_ms_ >= kFlushIntervalMs || store_->FlushDue()) {
    last_flush_ms_ = now_mono_ms;
    Flush();
  }
}

protocol::CallReply GcsService::Call(const protocol::CallRequest& request) {
  static const std::map<std::string, Op> kOps = {
      {"ping", &GcsService::Ping},
      {"get_starts", &GcsService::GetStarts},
      {"get_nodes", &GcsService::GetNodes},
      {"report_autoscaler", &GcsService::ReportAutoscaler},
      {"get_autoscaler", &GcsService::GetAutoscaler},
      {"set_webui_url", &GcsService::SetWebuiUrl},
      {"get_webui_url", &GcsService::GetWebuiUrl},
      {"put_plugin", &GcsService::PutPlugin},
      {"get_plugin", &GcsService::GetPlugin},
      {"register_actor", &GcsService::RegisterActor},
      {"get_actor", &GcsService::GetActor},
      {"get_namespace", &GcsService::GetNamespace},
      {"remove_actor", &GcsService::RemoveActor},
      {"record_actors", &GcsService::RecordActors},
      {"add_job", &GcsService::AddJob},
      {"finish_job", &GcsService::FinishJob},
      {"get_jobs", &GcsService::GetJobs},
      {"add_task_events", &GcsService::AddTaskEvents},
      {"get_actor_node", &GcsService::GetActorNode},
      {"add_object_locations", &GcsService::AddObjectLocations},
      {"get_object_locations", &GcsService::GetObjectLocations},
      {"add_objects", &GcsService::AddObjects},
      {"get_objects", &GcsService::GetObjects},
      {"get_actors", &GcsService::GetActors},
      {"get_task_events", &GcsService::GetTaskEvents},
      {"create_placement_group", &GcsService::CreatePlacementGroup},
      {"remove_placement_group", &GcsService::RemovePlacementGroup},
      {"get_placement_group", &GcsService::GetPlacementGroup},
      {"get_placement_groups", &GcsService::GetPlacementGroups},
      {"sync_bundles", &GcsService::SyncBundles},
  };
  protocol::CallReply reply;
  auto op = kOps.find(request.op);
  if (op == kOps.end()) {
    reply.error = "unknown GCS operation '" + request.op + "'";
    return reply;
  }
  Result<std::string> out = (this->*(op->second))(request.body);
  if (out.ok()) {
    reply.body = std::move(out).value();
  } else {
    if (out.status().code() == StatusCode::kInternal) {
      RAY_LOG_ERROR("GCS operation '{}' failed: {}", request.op, out.status().message());
    }
    reply.error = out.status().message();
  }
  return reply;
}

Result<std::string> GcsService::Ping(const std::string&) { return std::string(); }

Result<std::string> GcsService::GetStarts(const std::string&) {
  return Pack(std::make_tuple(starts_.starts, starts_.last_start_ms));
}

Result<std::string> GcsService::GetNodes(const std::string&) {
  std::vector<protocol::NodeInfo> nodes;
  nodes.reserve(nodes_.size());
  for (const auto& [id, node] : nodes_) nodes.push_back(node.info);
  return Pack(nodes);
}

Result<std::string> GcsService::ReportAutoscaler(const std::string& body) {
  using Args = std::tuple<std::string>;
  RAY_ASSIGN_OR_RETURN(Args args, DecodeTuple<Args>(body, "report_autoscaler body"));
  autoscaler_status_ = std::move(std::get<0>(args));
  autoscaler_seen_ms_ = MonoMillis();
  return std::string();
}

bool GcsService::AutoscalerAlive() const {
  // Alive: reported within the last 30 s (it reports every few seconds).
  return autoscaler_seen_ms_ > 0 && MonoMillis() - autoscaler_seen_ms_ < 30000;
}

Result<std::string> GcsService::GetAutoscaler(const std::string&) {
  return Pack(std::make_tuple(AutoscalerAlive(), autoscaler_status_));
}

Result<std::string> GcsService::SetWebuiUrl(const std::string& body) {
  if (body.size() > 1024) return Status::InvalidArgument("set_webui_url: a URL over 1 KiB");
  webui_url_ = body;
  webui_seen_ms_ = MonoMillis();
  return std::string();
}

Result<std::string> GcsService::GetWebuiUrl(const std::string&) {
  bool alive = webui_seen_ms_ > 0 && MonoMillis() - webui_seen_ms_ < 30000;
  return alive ? webui_url_ : std::string();
}

std::vector<scheduler::BundleNode> GcsService::LiveNodes() const {
  std::vector<scheduler::BundleNode> out;
  for (const auto& [id, node] : nodes_) {
    if (node.info.state != kAlive) continue;
    out.push_back({id, scheduler::ResourceSet::FromDoubles(node.info.total),
                   scheduler::ResourceSet::FromDoubles(node.info.available)});
  }
  return out;
}

Result<std::string> GcsService::CreatePlacementGroup(const std::string& body) {
  RAY_ASSIGN_OR_RETURN(PlacementGroupRecord pg,
                       groups_->Create(body, LiveNodes(), AutoscalerAlive()));
  return Pack(pg);
}

Result<std::string> GcsService::RemovePlacementGroup(const std::string& pg_id) {
  RAY_RETURN_IF_ERROR(groups_->Remove(pg_id, "removed by the user"));
  return std::string();
}

Result<std::string> GcsService::GetPlacementGroup(const std::string& body) {
  using Args = std::tuple<std::string, std::string>;
  RAY_ASSIGN_OR_RETURN(Args args, DecodeTuple<Args>(body, "get_placement_group body"));
  RAY_ASSIGN_OR_RETURN(PlacementGroupRecord pg,
                       groups_->Get(std::get<0>(args), std::get<1>(args)));
  return Pack(pg);
}

Result<std::string> GcsService::GetPlacementGroups(const std::string&) {
  return Pack(groups_->All());
}

Result<std::string> GcsService::SyncBundles(const std::string& body) {
  RAY_ASSIGN_OR_RETURN(BundleSync sync,
                       protocol::DecodeBody<BundleSync>(body, "sync_bundles body"));
  auto it = nodes_.find(sync.node_id);
  if (it == nodes_.end() || it->second.info.state != kAlive) {
    return Status::NotFound(kUnknownNode);
  }
  // What it has now, reservations included, is what other nodes place work by.
  it->second.info.total = sync.total;
  it->second.info.available = sync.available;
  BundleSyncReply reply = groups_->Sync(sync);
  if (groups_->waiting()) groups_->Schedule(LiveNodes());
  return Pack(reply);
}

Result<std::string> GcsService::PutPlugin(const std::string& body) {
  using Args = std::tuple<std::string, std::string, std::string>;
  RAY_ASSIGN_OR_RETURN(Args args, DecodeTuple<Args>(body, "put_plugin body"));
  auto& [hash, name, bytes] = args;
  if (hash.empty()) return Status::InvalidArgument("plugin hash is empty");
  RAY_RETURN_IF_ERROR(store_->PutPlugin(hash, name, bytes, NowMillis()));
  return std::string();
}

Result<std::string> GcsService::GetPlugin(const std::string& hash) {
  RAY_ASSIGN_OR_RETURN(std::optional<std::string> bytes, store_->GetPlugin(hash));
  if (!bytes) return Status::NotFound("plugin " + hash + " not found");
  return std::move(*bytes);
}

Result<std::string> GcsService::NamespaceOf(const std::string& ray_namespace,
                                            const std::string& id) {
  if (!ray_namespace.empty()) return ray_namespace;
  // Job ids are the first bytes of task and actor ids.
  RAY_ASSIGN_OR_RETURN(std::string ns, store_->JobNamespace(id.substr(0, JobId::kSize)));
  return ns;
}

Result<std::string> GcsService::RegisterActor(const std::string& body) {
  // body: [name, actor_id, node_id, ray_namespace ("": the actor's job's)]
  using Args = std::tuple<std::string, std::string, std::string, std::string>;
  RAY_ASSIGN_OR_RETURN(Args args, DecodeTuple<Args>(body, "register_actor body"));
  auto& [name, actor_id, node_id, asked_ns] = args;
  if (actor_id.empty()) return Status::InvalidArgument("actor_id is empty");
  std::string ns;
  if (!name.empty()) {
    RAY_ASSIGN_OR_RETURN(ns, NamespaceOf(asked_ns, actor_id));
    RAY_ASSIGN_OR_RETURN(std::string holder, store_->LiveActorByName(name, ns));
    if (!holder.empty() && holder != actor_id) {
      return Status::AlreadyExists("actor name '" + name + "' is taken" +
                                   (ns.empty() ? "" : " in namespace '" + ns + "'"));
    }
  }
  RAY_RETURN_IF_ERROR(store_->PutActor(actor_id, name, node_id, /*job_id=*/"", ns));
  return std::string();
}

Result<std::string> GcsService::GetActor(const std::string& body) {
  // body: [name, ray_namespace, job_id]; an empty namespace is the job's.
  using Args = std::tuple<std::string, std::string, std::string>;
  RAY_ASSIGN_OR_RETURN(Args args, DecodeTuple<Args>(body, "get_actor body"));
  auto& [name, asked_ns, job_id] = args;
  RAY_ASSIGN_OR_RETURN(std::string ns, NamespaceOf(asked_ns, job_id));
  return store_->LiveActorByName(name, ns);
}

Result<std::string> GcsService::GetNamespace(const std::string& job_id) {
  // body: a job id; its namespace, as AddJob recorded it.
  if (job_id.size() != JobId::kSize) return Status::InvalidArgument("get_namespace: not a job id");
  return NamespaceOf("", job_id);
}

Result<std::string> GcsService::RemoveActor(const std::string& actor_id) {
  RAY_RETURN_IF_ERROR(store_->SetActorDead(actor_id));
  return std::string();
}

Result<std::string> GcsService::RecordActors(const std::string& body) {
  using Records = std::vector<std::tuple<std::string, std::string, bool>>;
  RAY_ASSIGN_OR_RETURN(Records records, protocol::DecodeBody<Records>(body, "record_actors body"));
  for (const auto& [actor_id, node_id, alive] : records) {
    if (actor_id.empty()) return Status::InvalidArgument("actor_id is empty");
    RAY_RETURN_IF_ERROR(alive ? store_->PutActor(actor_id, "", node_id, /*job_id=*/"")
                              : store_->SetActorDead(actor_id));
  }
  return std::string();
}

Result<std::string> GcsService::AddJob(const std::string& body) {
  // body: [job_id, pid, entry, ray_namespace]
  using Args = std::tuple<std::string, int32_t, std::string, std::string>;
  RAY_ASSIGN_OR_RETURN(Args args, DecodeTuple<Args>(body, "add_job body"));
  auto& [job_id, pid, entry, ns] = args;
  if (job_id.empty()) return Status::InvalidArgument("job_id is empty");
  RAY_RETURN_IF_ERROR(store_->AddJob(job_id, pid, entry, NowMillis(), ns));
  return std::string();
}

Result<std::string> GcsService::FinishJob(const std::string& body) {
  using Args = std::tuple<std::string, int32_t>;
  RAY_ASSIGN_OR_RETURN(Args args, DecodeTuple<Args>(body, "finish_job body"));
  const std::string& job_id = std::get<0>(args);
  RAY_RETURN_IF_ERROR(store_->FinishJob(job_id, std::get<1>(args), NowMillis()));
  groups_->OnJobFinished(job_id);  // Ray: a job's placement groups go with it
  // Object ids begin with their job's id; the job's objects are gone.
  for (auto it = object_locations_.begin(); it != object_locations_.end();) {
    it = it->first.compare(0, job_id.size(), job_id) == 0 ? object_locations_.erase(it)
                                                          : std::next(it);
  }
  return std::string();
}

Result<std::string> GcsService::GetJobs(const std::string&) {
  RAY_ASSIGN_OR_RETURN(std::vector<JobRecord> jobs, store_->LoadJobs());
  return Pack(jobs);
}

Result<std::string> GcsService::AddTaskEvents(const std::string& body) {
  RAY_ASSIGN_OR_RETURN(auto events,
                       protocol::DecodeBody<std::vector<TaskEvent>>(body, "add_task_events body"));
  // Written after the reply has gone (Tick): the raylet does not wait for the disk.
  store_->BufferTaskEvents(std::move(events));
  return std::string();
}

Result<std::string> GcsService::GetActorNode(const std::string& actor_id) {
  return store_->LiveActorNode(actor_id);
}

Result<std::string> GcsService::AddObjectLocations(const std::string& body) {
  using Locations = std::vector<std::pair<std::string, std::string>>;
  RAY_ASSIGN_OR_RETURN(Locations locations,
                       protocol::DecodeBody<Locations>(body, "add_object_locations body"));
  for (const auto& [object_id, node_id] : locations) {
    auto& where = object_locations_[object_id].nodes;
    if (std::find(where.begin(), where.end(), node_id) == where.end()) where.push_back(node_id);
  }
  store_->BufferObjectLocations(std::move(locations));
  return std::string();
}

Result<std::string> GcsService::GetObjectLocations(const std::string& body) {
  RAY_ASSIGN_OR_RETURN(auto ids, protocol::DecodeBody<std::vector<std::string>>(
                                     body, "get_object_locations body"));
  std::vector<std::vector<std::string>> out;
  out.reserve(ids.size());
  for (const auto& id : ids) {
    auto it = object_locations_.find(id);
    out.push_back(it == object_locations_.end() ? std::vector<std::string>{} : it->second.nodes);
  }
  return Pack(out);
}

Result<std::string> GcsService::AddObjects(const std::string& body) {
  RAY_ASSIGN_OR_RETURN(auto objects,
                       protocol::DecodeBody<std::vector<ObjectLocation>>(body, "add_objects body"));
  std::vector<std::pair<std::string, std::string>> locations;
  locations.reserve(objects.size());
  for (auto& o : objects) {
    DirectoryEntry& entry = object_locations_[o.object_id];
    if (o.size > 0) entry.size = o.size;
    if (std::find(entry.nodes.begin(), entry.nodes.end(), o.node_id) == entry.nodes.end()) {
      entry.nodes.push_back(o.node_id);
    }
    locations.emplace_back(std::move(o.object_id), std::move(o.node_id));
  }
  store_->BufferObjectLocations(std::move(locations));
  return std::string();
}

Result<std::string> GcsService::GetObjects(const std::string& body) {
  // body: "" or msgpack limit (0: all). Ordered by object id, so a task's results
  // and a task's puts are adjacent.
  uint64_t limit = 0;
  if (!body.empty()) {
    RAY_ASSIGN_OR_RETURN(limit, protocol::DecodeBody<uint64_t>(body, "get_objects body"));
  }
  std::vector<ObjectRecord> out;
  out.reserve(object_locations_.size());
  for (const auto& [id, entry] : object_locations_) out.push_back({id, entry.nodes, entry.size});
  std::sort(out.begin(), out.end(),
            [](const ObjectRecord& a, const ObjectRecord& b) { return a.object_id < b.object_id; });
  if (limit > 0 && out.size() > limit) out.resize(limit);
  return Pack(out);
}

Result<std::string> GcsService::GetActors(const std::string&) {
  RAY_ASSIGN_OR_RETURN(std::vector<ActorRecord> actors, store_->LoadActors());
  return Pack(actors);
}

Result<std::string> GcsService::GetTaskEvents(const std::string& body) {
  // body: "" (every event) or msgpack [job_id ("": all jobs), limit (0: all)].
  using Args = std::tuple<std::string, uint64_t>;
  Args args{"", 0};
  if (!body.empty()) {
    RAY_ASSIGN_OR_RETURN(args, DecodeTuple<Args>(body, "get_task_events body"));
  }
  RAY_RETURN_IF_ERROR(store_->Flush());  // buffered events are part of the answer
  RAY_ASSIGN_OR_RETURN(std::vector<TaskEvent> events,
                       store_->LoadTaskEvents(std::get<0>(args), std::get<1>(args)));
  return Pack(events);
}

}  // namespace ray::gcs
