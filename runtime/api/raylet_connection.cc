#include "runtime/api/raylet_connection.h"

#include "runtime/base/logging.h"
#include "runtime/base/util.h"
#include "runtime/transport/curve.h"

namespace ray::core {

using protocol::MessageType;

Result<std::unique_ptr<RayletConnection>> RayletConnection::Connect(
    const std::string& endpoint, const protocol::RegisterClient& reg) {
  std::unique_ptr<RayletConnection> c(new RayletConnection(reg.worker_id));
  c->dealer_.SetSendLimit(kSendLimit);
  RAY_RETURN_IF_ERROR(c->dealer_.Connect(endpoint));
  c->Send(protocol::Encode(MessageType::kRegisterClient, 0, reg));
  auto frame = c->Receive(10000);
  if (!frame) return Status::Unavailable("the raylet at " + endpoint + " did not answer");
  RAY_ASSIGN_OR_RETURN(auto env, protocol::DecodeEnvelope(*frame));
  RAY_ASSIGN_OR_RETURN(c->node_,
                       protocol::DecodeBody<protocol::RegisterReply>(env.body, "RegisterReply"));
  if (!c->node_.error.empty()) return Status::PermissionDenied(c->node_.error);
  // The keys of the encrypted sockets to actors on other nodes (both ends).
  if (!c->node_.token.empty()) transport::UseClusterToken(c->node_.token);
  return c;
}

void RayletConnection::OnMessage(MessageType type, Handler handler) {
  handlers_[static_cast<uint16_t>(type)] = std::move(handler);
}

void RayletConnection::AddPollSource(PollSource source) { sources_.push_back(std::move(source)); }

void RayletConnection::SetPiggyback(std::function<std::string(bool all)> frames) {
  piggyback_ = std::move(frames);
}

void RayletConnection::Send(const std::string& frame) {
  // Backpressure: the raylet has not read this client's last frames yet. The wait
  // lasts while the raylet lives (the frame is dropped once it is gone, and the next
  // request says so), and says every 10 s what it waits for.
  for (int waited_s = 1; !dealer_.TrySend(frame, 1000); ++waited_s) {
    if (!RayletAlive()) return;
    if (waited_s % 10 == 0) {
      RAY_LOG_WARN("waited {} s for the raylet to read this process's messages (it is busy "
                   "or stalled; the send goes on once it reads)",
                   waited_s);
    }
  }
}

void RayletConnection::SendWithPiggyback(std::string frame, bool all) {
  std::string before = piggyback_ ? piggyback_(all) : std::string();
  if (before.empty()) {
    Send(frame);
  } else {
    Send(protocol::EncodeBatch({std::move(before), std::move(frame)}));
  }
}

void RayletConnection::SendPiggyback() {
  if (!piggyback_) return;
  std::string frames = piggyback_(false);
  if (!frames.empty()) Send(frames);
}

std::optional<std::string> RayletConnection::Receive(int timeout_ms) {
  if (inbox_.empty()) {
    // The raylet's socket and the parts' together; the raylet's alone needs no poll.
    // (The buffers are members: this runs for every frame, and allocates nothing.)
    std::vector<zmq::pollitem_t>& items = poll_items_;
    items.assign(1, {dealer_.socket().handle(), 0, ZMQ_POLLIN, 0});
    // Another thread wanting the client wakes the poll (see ClientLock).
    if (lock_) items.push_back({nullptr, lock_->wake_fd(), ZMQ_POLLIN, 0});
    const size_t first_source = items.size();
    source_items_.resize(sources_.size());
    for (size_t s = 0; s < sources_.size(); ++s) {
      size_t before = items.size();
      sources_[s].collect(items);
      source_items_[s] = items.size() - before;
    }
    if (items.size() > 1) {
      if (zmq::poll(items, std::chrono::milliseconds(timeout_ms)) == 0) return std::nullopt;
      bool raylet_ready = items[0].revents & ZMQ_POLLIN;
      size_t next = first_source;
      for (size_t s = 0; s < sources_.size(); ++s) {
        if (source_items_[s] > 0) sources_[s].ready(&items[next], source_items_[s]);
        next += source_items_[s];
      }
      if (lock_ && (items[1].revents & ZMQ_POLLIN)) {
        // (The raylet's frame, if any, is read at the next poll.)
        lock_->LetWaitersIn();
        return std::nullopt;
      }
      if (!raylet_ready) return std::nullopt;
      timeout_ms = 0;
    }
    auto frame = dealer_.Recv(timeout_ms);
    if (!frame) return std::nullopt;
    auto env = protocol::DecodeEnvelope(*frame);
    if (!env.ok() || env->type != MessageType::kBatch) return frame;
    auto frames = protocol::DecodeBatch(env->body);
    if (!frames.ok()) {
      RAY_LOG_WARN("dropped a frame from the raylet: {}", frames.status().message());
      return std::nullopt;
    }
    for (std::string_view f : *frames) inbox_.emplace_back(f);
    if (inbox_.empty()) return std::nullopt;
  }
  std::string frame = std::move(inbox_.front());
  inbox_.pop_front();
  return frame;
}

void RayletConnection::Dispatch(std::string_view frame) {
  auto env = protocol::DecodeEnvelope(frame);
  if (!env.ok()) {
    RAY_LOG_WARN("dropped a frame from the raylet: {}", env.status().message());
    return;
  }
  if (env->request_id != 0) {
    if (abandoned_.erase(env->request_id)) return;
    auto awaited = awaited_.find(env->request_id);
    if (awaited != awaited_.end() && awaited->second == env->type) {
      replies_[env->request_id] = std::string(env->body);  // for the thread awaiting it
      return;
    }
  }
  auto handler = handlers_.find(static_cast<uint16_t>(env->type));
  if (handler == handlers_.end()) {
    RAY_LOG_WARN("dropped unexpected message type {}", static_cast<int>(env->type));
    return;
  }
  handler->second(env->body);
}

bool RayletConnection::Pump(int timeout_ms) {
  if (lock_ && !lock_->TryTakePump()) {
    lock_->AwaitPump(timeout_ms);  // another thread polls, and handles what comes
    return RayletAlive();
  }
  auto frame = Receive(timeout_ms);
  if (frame) Dispatch(*frame);
  if (lock_) {
    lock_->NotifyHandled();
    lock_->ReleasePump();
  }
  return frame ? true : RayletAlive();
}

bool RayletConnection::RayletAlive() {
  // Looked at once a second at most: Receive comes back empty-handed after every
  // direct frame, and a look costs a kill() and a read of /proc/<pid>/stat.
  if (raylet_dead_) return false;
  if (node_.raylet_pid <= 0 || MonoMillis() < next_alive_check_ms_) return true;
  next_alive_check_ms_ = MonoMillis() + 1000;
  raylet_dead_ = !ProcessAlive(node_.raylet_pid);
  return !raylet_dead_;
}

Result<std::string> RayletConnection::Request(MessageType type, const std::string& body,
                                              MessageType reply_type) {
  RAY_ASSIGN_OR_RETURN(auto reply, Request(type, body, reply_type, nullptr));
  return std::move(*reply);
}

Result<std::optional<std::string>> RayletConnection::Request(
    MessageType type, const std::string& body, MessageType reply_type,
    const std::function<bool()>& settled) {
  uint64_t id = next_request_++;
  awaited_[id] = reply_type;
  SendWithPiggyback(protocol::Encode(type, id, body), /*all=*/true);
  auto forget = [&] {
    awaited_.erase(id);
    replies_.erase(id);
  };
  while (true) {
    if (auto it = replies_.find(id); it != replies_.end()) {  // handled by another thread
      std::string reply = std::move(it->second);
      forget();
      return std::optional<std::string>(std::move(reply));
    }
    if (settled && settled()) {
      forget();
      abandoned_.insert(id);
      // (A Wait blocked there holds this worker's CPU lent: the raylet takes it back.)
      Send(protocol::Encode(MessageType::kAbandoned, id, std::string()));
      return std::optional<std::string>();
    }
    std::optional<std::string> frame;
    if (lock_ && !lock_->TryTakePump()) {
      lock_->AwaitPump(1000);
    } else {
      frame = Receive(1000);
      std::optional<std::string> mine;
      if (frame) {
        auto env = protocol::DecodeEnvelope(*frame);
        if (env.ok() && env->type == reply_type && env->request_id == id) {
          mine = std::string(env->body);
        } else {
          Dispatch(*frame);
        }
      }
      if (lock_) {
        lock_->NotifyHandled();
        lock_->ReleasePump();
      }
      if (mine) {
        forget();
        return mine;
      }
    }
    if (!frame && !RayletAlive()) {
      forget();
      return Status::Unavailable("the raylet (pid " + std::to_string(node_.raylet_pid) +
                                 ") died");
    }
  }
}

Result<std::string> RayletConnection::Call(const std::string& op, const std::string& body) {
  protocol::CallRequest req{op, body, ""};
  RAY_ASSIGN_OR_RETURN(std::string reply_body,
                       Request(MessageType::kCall, internal::Pack(req), MessageType::kCallReply));
  RAY_ASSIGN_OR_RETURN(auto reply,
                       protocol::DecodeBody<protocol::CallReply>(reply_body, "CallReply"));
  if (!reply.error.empty()) return Status::FailedPrecondition(reply.error);
  return std::move(reply.body);
}

}  // namespace ray::core
