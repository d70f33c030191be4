#include "runtime/raylet/raylet_impl.h"

namespace ray::raylet {

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

}  // namespace ray::raylet
