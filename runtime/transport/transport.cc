#include "runtime/transport/transport.h"

#include <unistd.h>

#include <algorithm>

#include "runtime/base/logging.h"
#include "runtime/base/util.h"
#include "runtime/transport/curve.h"

namespace ray::transport {

zmq::context_t& Context() {
  static zmq::context_t* ctx = new zmq::context_t(1);  // outlives static destructors
  return *ctx;
}

namespace {
void CommonOptions(zmq::socket_t& s) {
  s.set(zmq::sockopt::linger, 0);
  s.set(zmq::sockopt::maxmsgsize, protocol::kMaxFrameBytes);
  s.set(zmq::sockopt::sndhwm, 0);
  s.set(zmq::sockopt::rcvhwm, 0);
}
}  // namespace

Router::Router() : socket_(Context(), zmq::socket_type::router) {
  CommonOptions(socket_);
  socket_.set(zmq::sockopt::router_mandatory, 1);
}

Result<std::string> Router::Bind(const std::string& endpoint) {
  if (Encrypted(endpoint)) RAY_RETURN_IF_ERROR(MakeCurveServer(socket_, endpoint));
  try {
    socket_.bind(endpoint);
  } catch (const zmq::error_t& e) {
    return Status::Unavailable("cannot listen on " + endpoint + ": " + e.what());
  }
  return socket_.get(zmq::sockopt::last_endpoint);
}

void Router::SetReceiveLimit(int messages) { socket_.set(zmq::sockopt::rcvhwm, messages); }

std::optional<Incoming> Router::Recv(int timeout_ms) {
  // Dropped messages do not restart the wait: it ends timeout_ms from now.
  const int64_t deadline = MonoMillis() + timeout_ms;
  while (true) {
    if (timeout_ms != 0) {
      int64_t wait = timeout_ms < 0 ? -1 : std::max<int64_t>(0, deadline - MonoMillis());
      zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
      if (zmq::poll(&item, 1, std::chrono::milliseconds(wait)) == 0) return std::nullopt;
    }
    zmq::message_t id, body;
    if (!socket_.recv(id, zmq::recv_flags::dontwait)) return std::nullopt;
    if (!id.more()) {
      RAY_LOG_WARN("dropped a message without a body");
      continue;
    }
    (void)socket_.recv(body, zmq::recv_flags::none);
    if (body.more()) {
      // Drain and drop extra parts: our protocol is one frame per message.
      zmq::message_t rest;
      do {
        (void)socket_.recv(rest, zmq::recv_flags::none);
      } while (rest.more());
      RAY_LOG_WARN("dropped a multi-part message from a peer");
      continue;
    }
    return Incoming{id.to_string(), body.to_string()};
  }
}

bool Router::Send(const std::string& peer, const std::string& frame) {
  try {
    if (!socket_.send(zmq::buffer(peer), zmq::send_flags::sndmore | zmq::send_flags::dontwait)) {
      return false;
    }
    return socket_.send(zmq::buffer(frame), zmq::send_flags::dontwait).has_value();
  } catch (const zmq::error_t& e) {
    // EHOSTUNREACH: the peer disconnected.
    return false;
  }
}

bool Router::SendWithPayload(const std::string& peer, const std::string& frame, const char* data,
                             size_t size, std::shared_ptr<const void> keep) {
  auto* held = new std::shared_ptr<const void>(std::move(keep));
  // (ZeroMQ calls this once it is done with the bytes, or when the message is dropped.)
  auto release = [](void*, void* hint) { delete static_cast<std::shared_ptr<const void>*>(hint); };
  zmq::message_t payload(const_cast<char*>(data), size, release, held);
  try {
    if (!socket_.send(zmq::buffer(peer), zmq::send_flags::sndmore | zmq::send_flags::dontwait) ||
        !socket_.send(zmq::buffer(frame), zmq::send_flags::sndmore | zmq::send_flags::dontwait)) {
      return false;
    }
    return socket_.send(payload, zmq::send_flags::dontwait).has_value();
  } catch (const zmq::error_t& e) {
    return false;  // (as Send)
  }
}

Dealer::Dealer(const std::string& identity) : socket_(Context(), zmq::socket_type::dealer) {
  CommonOptions(socket_);
  if (!identity.empty()) socket_.set(zmq::sockopt::routing_id, identity);
}

Status Dealer::Connect(const std::string& endpoint) {
  if (Encrypted(endpoint)) RAY_RETURN_IF_ERROR(MakeCurveClient(socket_, endpoint));
  try {
    socket_.connect(endpoint);
  } catch (const zmq::error_t& e) {
    return Status::Unavailable("cannot connect to " + endpoint + ": " + e.what());
  }
  return Status::Ok();
}

void Dealer::SetSendLimit(int messages) { socket_.set(zmq::sockopt::sndhwm, messages); }

void Dealer::Send(const std::string& frame) { socket_.send(zmq::buffer(frame), zmq::send_flags::none); }

bool Dealer::TrySend(const std::string& frame, int timeout_ms) {
  if (socket_.send(zmq::buffer(frame), zmq::send_flags::dontwait)) return true;
  zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLOUT, 0};
  try {
    if (zmq::poll(&item, 1, std::chrono::milliseconds(timeout_ms)) == 0) return false;
  } catch (const zmq::error_t&) {
    return false;  // EINTR: the caller tries again
  }
  return socket_.send(zmq::buffer(frame), zmq::send_flags::dontwait).has_value();
}

std::optional<std::string> Dealer::Recv(int timeout_ms, zmq::message_t* payload) {
  if (timeout_ms >= 0) {
    zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
    if (zmq::poll(&item, 1, std::chrono::milliseconds(timeout_ms)) == 0) return std::nullopt;
  }
  zmq::message_t msg;
  if (!socket_.recv(msg, zmq::recv_flags::none)) return std::nullopt;
  if (payload) payload->rebuild();
  bool more = msg.more();
  if (more && payload) {
    (void)socket_.recv(*payload, zmq::recv_flags::none);
    more = payload->more();
  }
  if (more) {
    zmq::message_t rest;
    do {
      (void)socket_.recv(rest, zmq::recv_flags::none);
    } while (rest.more());
    RAY_LOG_WARN("dropped the extra parts of a message");
  }
  return msg.to_string();
}

Result<std::string> Request(const std::string& endpoint, protocol::MessageType type,
                            const std::string& body, int timeout_ms) {
  Dealer d;
  RAY_RETURN_IF_ERROR(d.Connect(endpoint));
  d.Send(protocol::Encode(type, 1, body));
  auto reply = d.Recv(timeout_ms);
  if (!reply) {
    return Status::Unavailable("no reply from " + endpoint + " within " +
                               std::to_string(timeout_ms) + " ms");
  }
  return std::move(*reply);
}

namespace {
constexpr std::string_view kIpc = "ipc://";
}  // namespace

std::string WorkerEndpoint(const std::string& raylet_endpoint, const std::string& worker_id) {
  if (raylet_endpoint.rfind(kIpc, 0) == 0) {
    std::string path = raylet_endpoint.substr(kIpc.size());
    path = path.substr(0, path.rfind('/') + 1) + "w-" + ToHex(worker_id).substr(0, 16);
    if (path.size() < 100) return std::string(kIpc) + path;
  }
  return "tcp://127.0.0.1:*";
}

void RemoveSocketFile(const std::string& endpoint) {
  if (endpoint.rfind(kIpc, 0) == 0) ::unlink(endpoint.c_str() + kIpc.size());
}

}  // namespace ray::transport
