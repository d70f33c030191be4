#pragma once
// A thin layer over ZeroMQ. Servers are ROUTER sockets (each frame tagged with the
// peer's identity); clients are DEALER sockets. "Would block" is an empty optional,
// not an error. Sockets are not thread-safe: each belongs to one thread.

#include <zmq.hpp>

#include <memory>
#include <optional>
#include <string>

#include "runtime/base/status.h"
#include "runtime/serialization/protocol.h"

namespace ray::transport {

// The process-wide ZeroMQ context.
zmq::context_t& Context();

struct Incoming {
  std::string peer;   // routing identity
  std::string frame;  // envelope + body
};

class Router {
 public:
  Router();
  // Binds and returns the endpoint actually bound (tcp port 0 / '*' resolved).
  Result<std::string> Bind(const std::string& endpoint);
  // At most `messages` frames wait here per peer (0: no limit, the default); beyond
  // that the peer's sends wait (see Dealer::SetSendLimit). Before Bind.
  void SetReceiveLimit(int messages);
  // Next frame if one is waiting (timeout_ms 0) or arrives in time. Multi-part
  // messages of the wrong shape are dropped and logged.
  std::optional<Incoming> Recv(int timeout_ms = 0);
  // Drops the frame if the peer is gone or its queue is full (never blocks).
  bool Send(const std::string& peer, const std::string& frame);
  // Sends `frame`, then the `size` bytes at `data` as the second part of the same
  // message, without copying them: `keep` (what keeps them alive) is held until
  // ZeroMQ has sent them (then let go on its I/O thread), or let go here if the
  // message is dropped. Drops as Send does.
  bool SendWithPayload(const std::string& peer, const std::string& frame, const char* data,
                       size_t size, std::shared_ptr<const void> keep);
  zmq::socket_t& socket() { return socket_; }

 private:
  zmq::socket_t socket_;
};

class Dealer {
 public:
  // `identity` empty: ZeroMQ picks one.
  explicit Dealer(const std::string& identity = "");
  Status Connect(const std::string& endpoint);
  // At most `messages` frames wait to leave (0: no limit, the default); then Send
  // blocks until the peer takes some. Before Connect.
  void SetSendLimit(int messages);
  void Send(const std::string& frame);
  // Sends unless the send queue stays full for `timeout_ms`; false then.
  bool TrySend(const std::string& frame, int timeout_ms);
  // The next message's first frame (-1: wait forever). Its second part, if it has one
  // (Router::SendWithPayload), goes to `*payload` (else that is left empty); further
  // parts, or any with no `payload`, are dropped with a warning.
  std::optional<std::string> Recv(int timeout_ms, zmq::message_t* payload = nullptr);
  zmq::socket_t& socket() { return socket_; }

 private:
  zmq::socket_t socket_;
};

// Where a worker listens for direct calls: ipc://<beside the raylet's socket>/w-<id>,
// or loopback TCP (any port) if that path would be too long for a unix socket.
std::string WorkerEndpoint(const std::string& raylet_endpoint, const std::string& worker_id);

// Removes the socket file of an ipc:// endpoint (nothing for others).
void RemoveSocketFile(const std::string& endpoint);

// One request, one reply, over a fresh DEALER: for the CLI and daemons talking to
// the GCS. Unavailable if nothing answers within timeout_ms.
Result<std::string> Request(const std::string& endpoint, protocol::MessageType type,
                            const std::string& body, int timeout_ms);

}  // namespace ray::transport
