#include "runtime/raylet/raylet_impl.h"

namespace ray::raylet {

// ---------------------------------------------------------------------------
// Calls, jobs, housekeeping.

void Raylet::HandleLeaseWorker(Client& c, uint64_t req, std::string_view body) {
  auto msg = DecodeFrom<protocol::LeaseRequest>(c.peer, body, "LeaseRequest");
  std::optional<protocol::LeaseReply> reply = protocol::LeaseReply{};
  if (msg && LocalLeases::Valid(c.peer, *msg)) {
    ResourceSet need = scheduler::LeaseShapeOf(msg->resources);
    if (!placement_.FitsHere(need)) {
      reply = routes_.RemoteLease(c, *msg, need, req);
    } else {
      reply = leases_.Lease(c.peer, *msg);
      // Spillback: every resource of the shape is taken here, and another node has
      // room for it now: the lease is asked of that node (the answer, if not a grant,
      // is "busy", as it is here).
      if (reply->outcome == protocol::LeaseReply::kBusy && MultiNode()) {
        reply = routes_.RemoteLease(c, *msg, need, req, /*spillback=*/true);
      }
    }
  }
  if (reply) SendMsg(c.peer, MessageType::kLeaseReply, req, *reply);
}

void Raylet::HandleActorRoute(Client& c, uint64_t req, std::string_view body) {
  auto msg = DecodeFrom<protocol::ActorRouteRequest>(c.peer, body, "ActorRouteRequest");
  auto reply = msg ? routes_.ActorRoute(c, msg->actor_id, req)
                   : std::optional<protocol::ActorRouteReply>(protocol::ActorRouteReply{});
  if (reply) SendMsg(c.peer, MessageType::kActorRouteReply, req, *reply);
}

void Raylet::HandleTcpEndpoint(Client& c, std::string_view body) {
  auto msg = DecodeFrom<protocol::TcpEndpoint>(c.peer, body, "TcpEndpoint");
  if (!msg || c.is_driver) return;
  routes_.OnTcpEndpoint(c, msg->endpoint);
}

// A direct call (leased, or to an actor) that left its results in the other node's
// store is reported by its caller: this node then knows where to pull them from
// (without asking the GCS), and keeps a normal task's lineage, as for the tasks it
// forwards.
void Raylet::HandleRanElsewhere(Client& c, std::string_view body) {
  auto msg = DecodeFrom<protocol::RanElsewhere>(c.peer, body, "RanElsewhere");
  if (!msg) return;
  const TaskSpec& t = msg->spec;
  // (A normal task's spec may run again here: it is checked as a submission is.)
  Status valid = Status::Ok();
  if (t.kind == ri::kNormalTask) {
    valid = CheckTaskSpec(t);
  } else if (t.kind != ri::kActorTask || t.task_id.IsNil() ||
             t.num_returns < 1 || t.num_returns > 1000) {
    valid = Status::InvalidArgument("not a normal task, nor an actor call with an id and returns");
  }
  if (!valid.ok()) {
    RAY_LOG_WARN("peer {}: dropped a RanElsewhere: {}", Hex(c.peer), valid.message());
    return;
  }
  const std::string* node = routes_.NodeOfEndpoint(msg->endpoint);
  if (!node) {
    RAY_LOG_WARN("peer {}: dropped a RanElsewhere naming endpoint {}, which no route or lease "
                 "from here gave",
                 Hex(c.peer), msg->endpoint);
    return;
  }
  const std::string where = *node;
  remote_.RanOn(std::move(msg->spec), where);
  // Its node died before this came: its results are made again now (or fail), as for
  // the node's other objects when it died.
  if (!placement_.Alive(where)) locator_.RecoverObjectsOf(where);
}

void Raylet::HandlePluginPath(Client& c, uint64_t req, std::string_view body) {
  // A task sent directly: its worker asks where the plugin is on this node.
  auto msg = DecodeFrom<protocol::PluginPathRequest>(c.peer, body, "PluginPathRequest");
  protocol::PluginPathReply reply;
  if (!msg) {
    reply.error = "malformed PluginPathRequest";
  } else if (msg->hash.empty() ||
             msg->hash.find_first_not_of("0123456789abcdef") != std::string::npos) {
    reply.error = "plugin hash '" + msg->hash + "' is not hex";
  } else {
    reply.path = plugins_.PathOf(msg->hash);
  }
  SendMsg(c.peer, MessageType::kPluginPathReply, req, reply);
}

void Raylet::HandleCall(Client& c, uint64_t req, std::string_view body) {
  auto msg = DecodeFrom<protocol::CallRequest>(c.peer, body, "CallRequest");
  if (!msg) return;
  protocol::CallReply reply;
  if (GcsCalls::Handles(msg->op)) {
    std::optional<Result<std::string>> answer;
    if (gcs_watch_.Up()) answer = gcs_calls_.Answer(msg->op, msg->body);
    if (!answer || answer->status().code() == StatusCode::kUnavailable) {
      // The GCS is down, or went down during the call: answered when it is back (the
      // caller waits as for a slow answer).
      gcs_backlog_.DeferCall({c.peer, req, std::string(body)});
      return;
    }
    if (answer->ok()) {
      reply.body = std::move(*answer).value();
    } else {
      reply.error = answer->status().message();
    }
    SendMsg(c.peer, MessageType::kCallReply, req, reply);
    return;
  }
  if (msg->op == "flush_logs") {
    // Worker output written so far reaches the caller before this reply does.
    pool_->ReadOutput();
  } else if (msg->op == "node_id") {
    reply.body = node_id_.Hex();
  } else if (msg->op == "gpu_ids") {
    // The GPUs this client's task or actor holds (drivers: none).
    reply.body = ri::Pack(c.gpus.ids());
  } else if (msg->op == "profile_event") {
    // body: msgpack [name, start_ms, end_ms, task_id, job_id], a span of the client's
    // current task ("" on a driver, for the driver's job).
    auto span = protocol::DecodeBody<
        std::tuple<std::string, int64_t, int64_t, std::string, std::string>>(msg->body,
                                                                             "profile_event");
    if (!span.ok()) {
      reply.error = span.status().message();
    } else {
      TaskSpec where;
      where.task_id = TaskId::FromBinary(std::get<3>(*span));
      where.job_id = c.is_driver ? c.job_id : JobId::FromBinary(std::get<4>(*span));
      where.function = std::get<0>(*span);
      reporter_.Record(c, where, gcs::kTaskProfile, std::get<1>(*span), std::get<2>(*span));
    }
  } else if (msg->op == "kill_actor") {
    // body: msgpack [actor_id, no_restart]
    auto args = protocol::DecodeBody<std::tuple<std::string, bool>>(msg->body, "kill_actor");
    if (!args.ok()) {
      reply.error = args.status().message();
    } else {
      actor_host_.Kill(ActorId::FromBinary(std::get<0>(*args)), std::get<1>(*args));
    }
  } else if (msg->op == "sync_refs") {
    // The client's changes of what it holds, sent before this, are handled; answered
    // once other nodes acknowledged the borrows they made.
    return ReplyAfterBorrows(c.peer, req, std::move(reply));
  } else if (msg->op == "object_stored") {
    // body: an object id. Whether this node's store holds the object now.
    reply.body = ri::Pack(msg->body.size() == ObjectId::kSize &&
                          objects_.Find(ObjectId::FromBinary(msg->body)) != nullptr);
  } else if (msg->op == "exit_actor") {
    // The calling worker's actor ends for good (ray::ExitActor): its worker is killed,
    // so this is never answered; callers' calls fail with ActorDiedError.
    if (c.state != Client::kActor) {
      reply.error = "ExitActor: not called from an actor";
    } else {
      actor_host_.Kill(c.actor_id, /*no_restart=*/true, "the actor exited (ExitActor)");
      return;
    }
  } else {
    reply.error = "unknown operation '" + msg->op + "'";
  }
  SendMsg(c.peer, MessageType::kCallReply, req, reply);
}

void Raylet::FinishJob(const JobId& job_id) {
  RAY_LOG_INFO("job {} finished; releasing its actors and objects", job_id.Hex());
  finished_jobs_.insert(job_id);
  // The job's events are in the GCS once it is over.
  if (!stop_->load()) reporter_.Flush(finished_jobs_);
  actors_.ForEach([&](const ActorId& id, Actor& a) {
    if (a.creation.job_id != job_id || a.state == Actor::kDead) return;
    if (a.creation.detached) return;  // outlives its job
    if (!a.worker.empty()) pool_->Kill(a.worker);
    a.state = Actor::kDead;
    a.death_cause = "its job finished";
    actor_host_.Record(id, a);
  });
  if (!stop_->load()) gcs_reports_.SendActors();  // its actors are DEAD in the GCS once it is over
  // Nothing calls them any more (their handles died with the job): the GCS keeps them.
  actors_.EraseJob(job_id);
  // Its queued work goes, but a detached actor's creation: the actor outlives the job.
  auto dropped = [&](const TaskSpec& t) { return t.job_id == job_id && JobOver(t); };
  infeasible_.EraseIf(dropped);
  ready_.EraseIf(dropped);
  reporter_.JobFinished(job_id);  // its tasks shown RUNNING here end with it
  remote_.ForgetJob(job_id);
  objects_.EraseJob(job_id, [&](const ObjectId& id, const StoredObject&) { store_.Free(id); });
  lifetime_.EraseJob(job_id);
}

void Raylet::Periodic() {
  int64_t now = clock_.MonoMillis();
  next_periodic_ms_ = now + 200;
  routes_.ExpireAsks();
  for (const ObjectId& id : peers_->TakeStalledPulls()) remote_.Unlocated(id);
  if (peer_holds_.Waiting()) {
    for (const std::string& home : peer_holds_.Expire(now)) {
      RAY_LOG_WARN("node {} did not acknowledge this node's borrows within {} ms: what "
                   "waited for that goes on (its objects may be freed while held here)",
                   Hex(home), PeerHolds::kAckTimeoutMs);
    }
  }
  // Drivers that vanished without saying goodbye.
  std::vector<std::string> gone;
  for (const auto& [peer, c] : clients_.all()) {
    if (c.is_driver && !ProcessAlive(c.pid)) gone.push_back(peer);
  }
  for (const auto& peer : gone) {
    const Client& driver = *clients_.Find(peer);
    RAY_LOG_WARN("driver pid {} exited without disconnecting", driver.pid);
    FinishJob(driver.job_id);
    RevokeLeasesOf(peer);
    // It could not record its end: do it for it, so that every node releases the job.
    gcs_backlog_.JobEnded(driver.job_id, -1);
    clients_.Take(peer);
  }
  // Each GCS call below may wait for its timeout: stop promptly when asked to.
  if (stop_->load()) return;
  if (!gcs_watch_.Up()) {
    // Its calls would fail at once: nothing is sent, what must be written waits.
    if (gcs_backlog_.WentDown()) {
      RAY_LOG_WARN("the GCS at {} does not answer; keeping what it must be told until it is back",
                   options_.gcs_address);
    }
    gcs_reports_.GcsDown();
    return;
  }
  if (gcs_backlog_.CameBack(gcs_watch_.reconnects())) OnGcsBack();
  gcs_backlog_.RecordJobEnds(  // (those it cannot take yet: with the next Periodic)
      [&](const JobId& job_id, int32_t code) { return gcs_.FinishJob(job_id.Binary(), code); });
  if (gcs_reports_.HeartbeatDue(now)) {
    auto beat = gcs_reports_.Heartbeat(now, available_.ToDoubles(), Load(),
                                       [this] { return SelfInfo(); });
    if (beat != GcsReports::Beat::kFailed) group_bundles_.Sync();
    if (beat == GcsReports::Beat::kSentToNewGcs) OnGcsRestarted();
  }
  // While the GCS does not answer, do not queue up more calls that would each wait
  // for their timeout: the loop must stay responsive (and stop promptly).
  if (gcs_reports_.failing() || stop_->load()) return;
  RefreshCluster();
  if (stop_->load()) return;
  RetryInfeasible();
  reporter_.Flush(finished_jobs_);
  if (stop_->load()) return;
  gcs_reports_.SendActors();
  if (stop_->load()) return;
  gcs_reports_.SendObjects();
  locator_.LocateInBulk();
}

void Raylet::OnGcsRestarted() {
  size_t reported = 0;
  objects_.ForEach([&](const ObjectId& id, const StoredObject& o) {
    if (!MultiNode() && o.state != ObjectState::kShared) return;  // (as StoreObject)
    gcs_reports_.ObjectStored(id, o.state == ObjectState::kShared ? o.size : o.data.size());
    ++reported;
  });
  RAY_LOG_INFO("a GCS server started on the cluster's tables (start {}): reporting the {} objects "
               "held here again",
               gcs_.gcs_starts(), reported);
}

void Raylet::OnGcsBack() {
  RAY_LOG_INFO("the GCS at {} answers again (down for {} ms); sending what waited for it",
               options_.gcs_address, clock_.MonoMillis() - gcs_watch_.down_since_ms());
  gcs_reports_.HeartbeatSoon();  // it must not take this node for dead
  for (const auto& call : gcs_backlog_.TakeCalls()) {
    if (Client* c = clients_.Find(call.peer)) HandleCall(*c, call.req, call.body);
  }
  for (auto& t : gcs_backlog_.TakeActorTasks()) {
    if (!finished_jobs_.count(t.job_id)) actor_host_.Submit(std::move(t));
  }
}

// ---------------------------------------------------------------------------
// The other nodes.

std::vector<protocol::ResourceDemand> Raylet::Load() const {
  // Tasks queued here, and those sent ahead to busy workers, wait for resources.
  std::map<ResourceSet, int64_t> waiting;
  ready_.ForEachShape([&](const ResourceSet& shape, size_t count) {
    waiting[shape] += static_cast<int64_t>(count);
  });
  for (const auto& [peer, c] : clients_.all()) {
    for (const auto& t : c.queued) ++waiting[ResourcesOf(t)];
  }
  std::vector<protocol::ResourceDemand> load;
  for (const auto& [shape, count] : waiting) load.push_back({shape.ToDoubles(), count, false});
  for (const auto& [shape, count] : infeasible_.Demand()) {
    load.push_back({shape.ToDoubles(), count, true});
  }
  return load;
}

bool Raylet::AutoscalerAlive() {
  int64_t now = clock_.MonoMillis();
  if (!infeasible_.AutoscalerCheckDue(now)) return infeasible_.autoscaler_alive();
  auto r = gcs_.GetAutoscaler();
  // While the GCS is down, what it said last stands.
  infeasible_.AutoscalerChecked(now, r.status().code() == StatusCode::kUnavailable
                                         ? std::nullopt
                                         : std::optional<bool>(r.ok() && r->first));
  return infeasible_.autoscaler_alive();
}

void Raylet::RetryInfeasible() {
  if (!infeasible_.RetryDue(clock_.MonoMillis())) return;
  group_bundles_.CheckWaiting();
  for (auto& t : infeasible_.TakeForRetry()) {
    if (!JobOver(t)) Place(std::move(t), /*may_forward=*/true);
  }
  infeasible_.RetryDone();
}

protocol::NodeInfo Raylet::SelfInfo() const {
  protocol::NodeInfo info;
  info.node_id = node_id_.Binary();
  info.address = options_.node_ip;
  info.raylet_socket = endpoint_;
  info.session_dir = options_.session_dir;
  info.total = placement_.local_total().ToDoubles();
  info.available = available_.ToDoubles();
  info.pid = ::getpid();
  info.peer_address = peer_address_;
  return info;
}

void Raylet::SpillQueued() {
  ready_.TakeWaiting(available_, [&](const ResourceSet& need, TaskSpec& t) {
    if (remote_.FromElsewhere(t.task_id)) return false;  // forwarded here: it stays
    auto node = placement_.RemoteWithRoom(need);
    if (!node) return false;
    remote_tasks_.Send(std::move(t), *node);
    return true;
  });
}

void Raylet::OnPullRequested(const std::string& peer, const ObjectId& id) {
  // A copy of a task's result evicted here, which this node can neither make again
  // (no lineage here) nor fetch (no live node it knows of holds it): the asking node
  // looks elsewhere, or turns to the owner (waiting here could wait for that node).
  const std::string* known = remote_.NodeOf(id);
  if (!id.IsPut() && !Ready(id) && evicted_.count(id) && !remote_.LineageOf(id) &&
      !(known && placement_.Alive(*known))) {
    ObjectPayload lost;
    lost.id = id;
    lost.state = static_cast<uint8_t>(ObjectState::kError);
    lost.data = ri::Pack(ri::ErrorInfo{ri::kObjectLost, "ObjectLostError",
                                       "object " + id.Hex() + " was evicted from node " +
                                           node_id_.Hex() + "'s full object store",
                                       "", ""});
    peers_->Serve(peer, lost);
    return;
  }
  // Served at once if it is here and in memory; after its restore if spilled.
  auto w = std::make_shared<Waiter>();
  w->kind = Waiter::kPeerPull;
  w->peer = peer;
  w->ids = {id};
  reads_.Await(w);
}

bool Raylet::RefreshCluster() {
  // At most every 10 ms: a burst of unplaceable tasks asks the GCS once.
  int64_t now = clock_.MonoMillis();
  if (now - last_refresh_ms_ < 10) return false;
  last_refresh_ms_ = now;
  auto nodes = gcs_.GetNodes();
  if (!nodes.ok()) return false;
  bool was_single = !MultiNode();
  for (auto& n : *nodes) {
    if (n.node_id == node_id_.Binary()) continue;
    bool alive = n.state == gcs::kAlive;
    if (alive) peers_->SetPeerAddress(n.node_id, n.peer_address);
    bool was_alive = placement_.UpdateNode(n.node_id, alive, !n.peer_address.empty(),
                                           ResourceSet::FromDoubles(n.total),
                                           ResourceSet::FromDoubles(n.available),
                                           clock_.MonoMillis());
    if (was_alive && !alive) OnNodeDead(n.node_id);
  }
  // A node joined a single-node cluster (the autoscaler added it): tasks sent ahead
  // to busy workers come back to the queue, from which they may spill to it.
  if (was_single && MultiNode()) {
    for (auto& [peer, c] : clients_.all()) ahead_.TakeBack(c);
  }
  // Jobs that ended elsewhere end here too (checked with the heartbeat).
  if (now < next_jobs_check_ms_) return true;
  next_jobs_check_ms_ = now + options_.heartbeat_ms;
  auto jobs = gcs_.GetJobs();
  if (jobs.ok()) {
    for (const auto& j : *jobs) {
      const JobId job = JobId::FromBinary(j.job_id);  // (nil: not a job id; skipped)
      if (j.end_ms > 0 && !job.IsNil() && !finished_jobs_.count(job)) FinishJob(job);
    }
  }
  return true;
}

void Raylet::OnNodeDead(const std::string& node_id) {
  RAY_LOG_WARN("node {} is dead; re-placing its work", Hex(node_id));
  for (const auto& id : peers_->ForgetPeer(node_id)) remote_.Unlocated(id);
  // Tasks sent there and not finished: retried elsewhere, as for a dead worker.
  for (auto& t : remote_.TakeLostTasks(node_id)) {
    std::string why = "node " + Hex(node_id) + " died while running " + t.function;
    if (t.kind == ri::kActorTask) {
      FailTask(t, ri::kActorDied, "ActorDiedError", why);
    } else if (t.kind == ri::kNormalTask && protocol::TakeRetry(t)) {
      locator_.RunAgain(std::move(t));
    } else if (t.kind == ri::kNormalTask) {
      FailTask(t, ri::kWorkerCrashed, "WorkerCrashedError", why + "; no retries are left");
    }
  }
  // Actors that lived there: restarted elsewhere if they may be, else dead (and their
  // constructor's arguments let go of, after the walk: that may free objects).
  std::vector<TaskId> dead_creations;
  actors_.ForEach([&](const ActorId& actor_id, Actor& a) {
    if (a.remote_node != node_id || a.state == Actor::kDead) return;
    actor_host_.TellCallersGone(actor_id, a, "its node " + Hex(node_id) + " died");
    if (a.MayRestart()) {
      ++a.restarts;
      Place(a.creation, true);
    } else {
      a.state = Actor::kDead;
      a.death_cause = "its node " + Hex(node_id) + " died";
      dead_creations.push_back(a.creation.task_id);
    }
  });
  for (const TaskId& creation : dead_creations) lifetime_.ReleaseHolds(ObjectHolds::Task(creation));
  routes_.NodeDied(node_id);
  locator_.RecoverObjectsOf(node_id);
  // What it held of objects homed here goes; its acknowledgements are not waited for.
  peer_holds_.Forget(node_id);
  lifetime_.ReleaseHolds(ObjectHolds::Node(node_id));
}

void Raylet::ForwardLogs(const std::string& worker, int pid, std::string_view text,
                         bool is_stderr) {
  const Client* w = clients_.Find(worker);
  const JobId job = w ? w->last_job : JobId();
  protocol::LogLines lines{fmt::format("pid={}", pid), std::string(text), is_stderr};
  std::string frame = protocol::Encode(MessageType::kLogLines, 0, lines);
  for (const auto& [peer, c] : clients_.all()) {
    if (c.is_driver && (job.IsNil() || c.job_id == job)) outbox_.Queue(peer, frame);
  }
}

}  // namespace ray::raylet
