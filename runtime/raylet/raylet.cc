#include "runtime/raylet/raylet_impl.h"

#include <malloc.h>

#include <utility>

#include "runtime/object_store/spill_files.h"
#include "runtime/raylet/node_logs.h"

namespace ray::raylet {

namespace {

// <session>/sockets/raylet, unless that exceeds the 107-byte limit of a Unix socket
// path: then a private per-user directory under /tmp, named by the session.
std::string RayletSocketPath(const std::string& session_dir) {
  std::string path = session_dir + "/sockets/raylet";
  if (path.size() < 100) return path;
  std::string dir = "/tmp/ray-sockets-" + std::to_string(::getuid());
  ::mkdir(dir.c_str(), 0700);
  return dir + "/" + ContentHash(session_dir) + ".raylet";
}

}  // namespace

// ---------------------------------------------------------------------------

Status Raylet::Run(const std::atomic<bool>& stop) {
  stop_ = &stop;
  std::string socket_path = RayletSocketPath(options_.session_dir);
  ::unlink(socket_path.c_str());
  // At most this many frames from each client wait unread here: a client that sends
  // faster than the loop reads (a loop of small puts) waits in its send instead of
  // growing this process's memory (see RayletConnection::Send).
  router_.SetReceiveLimit(64);
  // Before any client: they open it when they connect.
  if (auto index = object_store::ObjectIndexWriter::Create(object_store::ObjectIndexName(store_.tag()));
      index.ok()) {
    index_ = std::move(*index);
    objects_.PublishIn(index_.get());
  } else {
    RAY_LOG_WARN("no object index ({}): every Get of an object made by another process asks "
                 "the raylet; free space in /dev/shm and restart this node to have one",
                 index.status().message());
  }
  RAY_ASSIGN_OR_RETURN(endpoint_, router_.Bind("ipc://" + socket_path));
  pool_ = std::make_unique<WorkerPool>(
      WorkerPoolOptions{SelfExecutable(), endpoint_, options_.session_dir, node_id_.Hex(), &clock_},
      [this](const std::string& w, int pid, std::string_view text, bool err) {
        ForwardLogs(w, pid, text, err);
      });

  peers_ = std::make_unique<ObjectManager>(
      node_id_, options_.token, store_.tag(),
      ObjectManager::Handlers{
          [this](const std::string& peer, const ObjectId& id) { OnPullRequested(peer, id); },
          [this](protocol::ForwardTask t) { remote_tasks_.Received(std::move(t)); },
          [this](const protocol::TaskFinished& f) { remote_tasks_.FinishedElsewhere(f); },
          [this](const ObjectPayload& p, const std::string& from) { OnObjectPulled(p, from); },
          [this](const protocol::ActorKill& k) { actor_host_.Kill(k.actor_id, k.no_restart); },
          [this](const protocol::LogsRequest& r) {
            return AnswerLogsRequest(options_.session_dir + "/logs", r);
          },
          [this](const protocol::RouteAsk& a) { routes_.OnRouteAsk(a); },
          [this](const protocol::RouteAnswer& a) { routes_.OnRouteAnswer(a); },
          [this](const protocol::PeerActorGone& g) { routes_.OnPeerActorGone(g); },
          [this](const protocol::LeaseAsk& a) { routes_.OnLeaseAsk(a); },
          [this](const protocol::LeaseAnswer& a) { routes_.OnLeaseAnswer(a); },
          [this](const protocol::PeerLeaseGone& g) { routes_.OnPeerLeaseGone(g); },
          [this](const protocol::PeerHolds& h) { lifetime_.OnPeerHolds(h); },
          [this](const protocol::PeerHoldsAck& a) { peer_holds_.Acked(a.from_node, a.seq); }},
      clock_);
  RAY_ASSIGN_OR_RETURN(peer_address_, peers_->Listen(options_.node_ip));
  RAY_RETURN_IF_ERROR(gcs_.RegisterNode(SelfInfo()));
  RAY_LOG_INFO("raylet {} serving at {} (other nodes at {}) with resources {}", node_id_.Hex(), endpoint_,
               peer_address_,
               placement_.local_total().ToString());
  StartWorkers(starts_.prestart());
  if (!options_.ready_file.empty()) RAY_RETURN_IF_ERROR(WriteFile(options_.ready_file, endpoint_));

  std::vector<zmq::pollitem_t> items;
  int64_t next_reap_ms = 0;
  while (!stop.load()) {
    items.clear();
    items.push_back({router_.socket().handle(), 0, ZMQ_POLLIN, 0});
    pool_->AddPollItems(items);
    const size_t pool_items = items.size();
    peers_->AddPollItems(items);
    if (store_.IoPending()) items.push_back({nullptr, store_.io_fd(), ZMQ_POLLIN, 0});
    int64_t timeout = 100;
    if (auto deadline = objects_.NextDeadline()) {
      timeout = std::clamp<int64_t>(*deadline - clock_.MonoMillis(), 0, 100);
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
      HandleFrame(in->peer, in->frame);
    }
    peers_->Poll();
    if (store_.IoPending()) reads_.OnStoreIo();
    // Worker output, and exits (which close a worker's pipes), when its pipes say
    // so; exits are also looked for every 50 ms. The rest of the time a turn makes
    // no system call for them.
    bool pipes = std::any_of(items.begin() + 1, items.begin() + pool_items,
                             [](const zmq::pollitem_t& i) { return i.revents != 0; });
    if (pipes || clock_.MonoMillis() >= next_reap_ms) {
      pool_->ReadOutput();
      for (const auto& e : pool_->Reap()) OnWorkerExit(e);
      next_reap_ms = clock_.MonoMillis() + 50;
    }
    reads_.ExpireDeadlines();
    Dispatch();
    FlushOutbox();  // replies first: Periodic may wait on the GCS
    if (clock_.MonoMillis() >= next_periodic_ms_) {
      Periodic();
      Dispatch();
      FlushOutbox();
    }
  }
  FlushOutbox();
  RAY_LOG_INFO("raylet stopping");
  // Briefly: with `ray run` interrupted, the GCS may be gone already.
  gcs::GcsClient last_words(options_.gcs_address, options_.token, 300);
  const auto& events = reporter_.pending();
  Status said = events.empty() ? Status::Ok() : last_words.AddTaskEvents(events);
  if (said.code() != StatusCode::kUnavailable) (void)last_words.UnregisterNode(node_id_.Binary());
  pool_.reset();  // kills workers
  object_store::UnlinkAllSegments(store_.tag());
  object_store::RemoveSpillFiles(options_.session_dir + "/spill", store_.tag());
  ::unlink(socket_path.c_str());
  return Status::Ok();
}

void Raylet::FlushOutbox() {
  peer_holds_.Flush([&](const std::string& node, const auto& m) {
    constexpr MessageType type = std::is_same_v<std::decay_t<decltype(m)>, protocol::PeerHolds>
                                     ? MessageType::kPeerHolds
                                     : MessageType::kPeerHoldsAck;
    return peers_->Tell(node, type, m);
  });
  outbox_.Flush(
      [&](const std::string& peer, const std::string& message) { router_.Send(peer, message); },
      [&](const std::string& peer) { return clients_.Has(peer); });
}

void Raylet::HandleFrame(const std::string& peer, std::string_view frame, bool in_batch) {
  auto env = protocol::DecodeEnvelope(frame);
  if (!env.ok()) {
    RAY_LOG_WARN("dropped frame from peer {}: {}", Hex(peer), env.status().message());
    return;
  }
  if (env->type == MessageType::kRegisterClient) {
    HandleRegister(peer, env->request_id, env->body);
    return;
  }
  Client* client = clients_.Find(peer);
  if (!client || !client->registered) {
    RAY_LOG_WARN("dropped message type {} from unregistered peer {}",
                 static_cast<int>(env->type), Hex(peer));
    return;
  }
  Client& c = *client;
  switch (env->type) {
    case MessageType::kBatch: {
      if (in_batch) {
        RAY_LOG_WARN("dropped a batch nested in a batch from peer {}", Hex(peer));
        return;
      }
      auto frames = protocol::DecodeBatch(env->body);
      if (!frames.ok()) {
        RAY_LOG_WARN("dropped frame from peer {}: {}", Hex(peer), frames.status().message());
        return;
      }
      for (std::string_view f : *frames) HandleFrame(peer, f, /*in_batch=*/true);
      return;
    }
    case MessageType::kSubmitTask: return HandleSubmit(peer, env->body);
    case MessageType::kGetObjects: return HandleGet(c, env->request_id, env->body);
    case MessageType::kWaitObjects: return HandleWait(c, env->request_id, env->body);
    case MessageType::kPutObject: return HandlePut(c, env->request_id, env->body);
    case MessageType::kTaskDone: return HandleTaskDone(c, env->body);
    case MessageType::kFreeObjects: return HandleFree(c, env->body);
    case MessageType::kTaskEvents:  // direct calls a worker ran, for the state API
      if (auto m = DecodeFrom<protocol::TaskEvents>(c.peer, env->body, "TaskEvents")) {
        reporter_.RecordDirectCalls(c, *m);
      }
      return;
    case MessageType::kReturnLease: return leases_.Return(c);
    case MessageType::kCall: return HandleCall(c, env->request_id, env->body);
    case MessageType::kLeaseWorker: return HandleLeaseWorker(c, env->request_id, env->body);
    case MessageType::kLeaseWanted: return HandleLeaseWanted(c, env->body);
    case MessageType::kActorRoute: return HandleActorRoute(c, env->request_id, env->body);
    case MessageType::kTcpEndpoint: return HandleTcpEndpoint(c, env->body);
    case MessageType::kRanElsewhere: return HandleRanElsewhere(c, env->body);
    case MessageType::kAbandoned: return lending_.Abandoned(c, env->request_id);
    case MessageType::kPluginPath: return HandlePluginPath(c, env->request_id, env->body);
    case MessageType::kDisconnect:
      if (c.is_driver) FinishJob(c.job_id);
      lifetime_.ReleaseHolds(ObjectHolds::Process(peer));
      RevokeLeasesOf(peer);
      clients_.Take(peer);
      return;
    default:
      RAY_LOG_WARN("dropped unexpected message type {} from {}", static_cast<int>(env->type),
                   Hex(peer));
  }
}

void Raylet::HandleRegister(const std::string& peer, uint64_t req, std::string_view body) {
  auto msg = DecodeFrom<protocol::RegisterClient>(peer, body, "RegisterClient");
  if (!msg) return;
  protocol::RegisterReply reply{node_id_.Binary(), options_.session_dir, options_.node_ip, "",
                                store_.tag(), ::getpid(), store_.capacity_bytes(), options_.token};
  Client* worker = clients_.Find(peer);
  if (msg->is_driver) {
    clients_.AddDriver(peer, msg->pid, msg->job_id);
    RAY_LOG_INFO("driver pid {} connected for job {}", msg->pid, msg->job_id.Hex());
  } else if (!worker) {
    reply.error = "unknown worker: workers are started by the raylet";
    RAY_LOG_WARN("refused registration of unknown worker {}", Hex(peer));
  } else {
    clients_.Register(*worker, msg->pid, msg->direct_endpoint);
  }
  SendMsg(peer, MessageType::kRegisterReply, req, reply);
}

// ---------------------------------------------------------------------------
// Objects.

void Raylet::StoreObject(const ObjectPayload& p, bool copy) {
  const ObjectId& id = p.id;
  if (!copy && !id.IsPut()) lifetime_.TaskEnded(id.Task());
  if (!id.IsPut()) remote_.Rebuilt(id.Task());
  // The raylet frees (unlinks) what it admits, so it admits only this store's segment
  // for this id, never a name a client chose.
  if (p.state == static_cast<uint8_t>(ObjectState::kShared) &&
      p.shm_name != object_store::SegmentName(store_.tag(), id)) {
    RAY_LOG_WARN("dropped object {}: segment '{}' is not this node's segment for it", id.Hex(),
                 p.shm_name);
    return;
  }
  if (objects_.TakeFreedOnArrival(id) || finished_jobs_.count(TaskJob(id.Task()))) {
    if (p.state == static_cast<uint8_t>(ObjectState::kShared)) object_store::UnlinkSegment(p.shm_name);
    return;
  }
  if (const StoredObject* kept = objects_.Find(id)) {
    // A retried task or restarted actor may produce an object again: keep the first.
    // Segments are named per id, so only a segment the kept copy does not use goes.
    if (p.state == static_cast<uint8_t>(ObjectState::kShared) && kept->segment != p.shm_name) {
      object_store::UnlinkSegment(p.shm_name);
    }
    return;
  }

  StoredObject o{static_cast<ObjectState>(p.state), p.data, "", 0};
  if (o.state == ObjectState::kShared) {
    Status st = store_.Admit(id, p.shm_name, p.size, /*referenced=*/!copy);
    DropEvicted();
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
  if (MultiNode() || o.state == ObjectState::kShared) {
    gcs_reports_.ObjectStored(id, o.state == ObjectState::kShared ? o.size : o.data.size());
  }
  evicted_.erase(id);
  remote_.Stored(id);
  // Made here while a pull of it runs (made again here, say): the pull is dropped.
  if (!copy && peers_->Pulling(id)) peers_->CancelPull(id);
  objects_.Insert(id, std::move(o), [&](const std::shared_ptr<Waiter>& w) { reads_.Complete(w); });
}

void Raylet::StoreHolding(std::span<const ObjectPayload> objects,
                          const std::vector<ObjectId>& contained) {
  // (Every hold first: storing a task's first result lets go of its arguments.)
  if (!contained.empty()) {
    for (const ObjectPayload& p : objects) lifetime_.AddHolds(contained, ObjectHolds::Object(p.id));
  }
  for (const ObjectPayload& p : objects) {
    StoreObject(p);
    // Dropped (freed before it came): what its value held goes too.
    if (!contained.empty() && !objects_.Find(p.id)) lifetime_.ReleaseHolds(ObjectHolds::Object(p.id));
  }
}

void Raylet::ReplyAfterBorrows(const std::string& peer, uint64_t req, protocol::CallReply reply) {
  peer_holds_.After([this, peer, req, reply = std::move(reply)] {
    SendMsg(peer, MessageType::kCallReply, req, reply);
  }, clock_.MonoMillis());
}

void Raylet::HandleFree(Client& c, std::string_view body) {
  auto msg = DecodeFrom<protocol::FreeObjects>(c.peer, body, "FreeObjects");
  if (msg) lifetime_.OnFree(c.peer, *msg);
}

void Raylet::OnObjectPulled(const ObjectPayload& p, const std::string& from) {
  // The node it was pulled from lost its copy (evicted): it may be looked for again
  // (ObjectLocator::LookElsewhere) instead of storing the error.
  if (p.state == static_cast<uint8_t>(ObjectState::kError) && !p.id.IsPut()) {
    auto e = protocol::DecodeBody<ri::ErrorInfo>(p.data, "pulled error");
    if (e.ok() && e->kind == ri::kObjectLost && locator_.LookElsewhere(p.id, from)) return;
  }
  StoreObject(p, /*copy=*/true);
}

void Raylet::StoreError(const ObjectId& id, const ri::ErrorInfo& e) {
  ObjectPayload p;
  p.id = id;
  p.state = static_cast<uint8_t>(ObjectState::kError);
  p.data = ri::Pack(e);
  StoreObject(p);
}

void Raylet::FailTask(const TaskSpec& t, ri::ErrorKind kind, const std::string& type,
                      const std::string& message) {
  std::vector<ObjectPayload> errors(std::max<uint32_t>(t.num_returns, 1));
  for (uint32_t i = 1; i <= errors.size(); ++i) {
    errors[i - 1].id = ObjectId::ForTaskReturn(t.task_id, i);
    StoreError(errors[i - 1].id, ri::ErrorInfo{kind, type, message, t.function, "node " + options_.node_ip});
  }
  remote_tasks_.Finished(t.task_id, errors);  // (a task from another node: it finished there too)
}

void Raylet::DropEvicted() {
  for (const ObjectId& id : store_.TakeEvicted()) {
    objects_.Erase(id);
    evicted_.insert(id);
    RAY_LOG_DEBUG("evicted the copy of object {} to make room", id.Hex());
  }
}

std::unordered_set<std::string> Raylet::MappedSegments() const {
  auto mapped = object_store::SegmentsMappedBy(::getpid(), store_.tag());
  for (const auto& [peer, c] : clients_.all()) {
    if (c.pid > 0) mapped.merge(object_store::SegmentsMappedBy(c.pid, store_.tag()));
  }
  return mapped;
}

void Raylet::ArgsReady(Waiter& w) {
  if (w.task.kind != ri::kActorTask) {
    OnArgsReady(std::move(w.task));
    return;
  }
  actor_host_.ArgumentsReady(ActorId::FromBinary(w.task.actor_id));
}

void Raylet::ServePull(Waiter& w) {
  // (A peer's identity begins with its node id: told to drop the copy when it is freed.)
  remote_.Served(w.ids[0], w.peer.substr(0, NodeId::kSize));
  peers_->Serve(w.peer, reads_.PayloadOf(w.ids[0]));
}

void Raylet::HandleGet(Client& c, uint64_t req, std::string_view body) {
  auto msg = DecodeFrom<protocol::GetRequest>(c.peer, body, "GetRequest");
  if (!msg) return;
  auto w = std::make_shared<Waiter>();
  w->kind = Waiter::kGet;
  if (placement_.Alive(msg->from_node)) w->origin = msg->from_node;
  Read(c, req, std::move(w), std::move(msg->ids), msg->timeout_ms);
}

void Raylet::HandleWait(Client& c, uint64_t req, std::string_view body) {
  auto msg = DecodeFrom<protocol::WaitRequest>(c.peer, body, "WaitRequest");
  if (!msg) return;
  auto w = std::make_shared<Waiter>();
  w->kind = Waiter::kWait;
  w->task.num_returns = msg->num;
  Read(c, req, std::move(w), std::move(msg->ids), msg->timeout_ms);
}

void Raylet::Read(Client& c, uint64_t req, std::shared_ptr<Waiter> w, std::vector<ObjectId> ids,
                  int64_t timeout_ms) {
  ahead_.TakeBack(c);
  w->peer = c.peer;
  w->request_id = req;
  w->ids = std::move(ids);
  w->deadline_ms = timeout_ms < 0 ? -1 : clock_.MonoMillis() + timeout_ms;
  reads_.Await(w);
  if (timeout_ms != 0) lending_.Blocked(c, w);
}

void Raylet::HandlePut(Client& c, uint64_t req, std::string_view body) {
  auto msg = DecodeFrom<protocol::PutRequest>(c.peer, body, "PutRequest");
  if (!msg) return;
  StoreHolding({&msg->object, 1}, msg->contained_refs);
  if (req != 0) {  // the client waits for an acknowledgement (shared-memory puts)
    const ObjectId id = msg->object.id;
    const StoredObject* o = objects_.Find(id);
    protocol::CallReply reply;
    if (o && o->state == ObjectState::kError &&
        msg->object.state != static_cast<uint8_t>(ObjectState::kError)) {
      reply.error = ri::Unpack<ri::ErrorInfo>(o->data.data(), o->data.size()).message;
    }
    ReplyAfterBorrows(c.peer, req, std::move(reply));  // (refs its value holds, borrowed)
  }
}

Status RunRaylet(const RayletOptions& options, const std::atomic<bool>& stop) {
  // Object chunks (8 MiB) and large frames come from the heap and go back to it, to
  // be reused: not a fresh mapping, page-faulted and zeroed, for each (a transfer
  // between nodes ran at less than half the speed).
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 64 << 20);
  Raylet raylet(options);
  return raylet.Run(stop);
}

}  // namespace ray::raylet
