#pragma once
// Channel: one DEALER kept for a sequence of requests to one endpoint, instead of a
// fresh socket (a TCP connect and handshake, and CURVE's between hosts) for each.
// A request is one round trip; its reply is the first frame carrying its request id.
// One request at a time: calls from several threads take turns. A request that gets
// no reply in time drops the socket, so a late reply never meets the next request.

#include <mutex>
#include <memory>
#include <string>

#include "runtime/base/status.h"
#include "runtime/serialization/protocol.h"
#include "runtime/transport/transport.h"

namespace ray::transport {

struct ChannelOptions {
  std::string name;             // how errors name the peer ("the GCS at ..."); "": the endpoint
  std::string identity_prefix;  // "": ZeroMQ picks; else this and random hex, per socket
  std::string hello;            // a frame sent first on each new socket ("": none)
  int heartbeat_ms = 0;         // ZeroMQ heartbeats, and 3x that to drop a silent peer (0: none)
};

class Channel {
 public:
  Channel(std::string endpoint, ChannelOptions options = {});
  // The reply (envelope and body) to a `type` request with `body`; Unavailable if none
  // came within `timeout_ms`, or the socket failed.
  Result<std::string> Request(protocol::MessageType type, const std::string& body, int timeout_ms);

 private:
  const std::string endpoint_;
  const ChannelOptions options_;
  std::mutex mu_;
  std::unique_ptr<Dealer> dealer_;  // null until the next request connects one
  uint64_t last_request_ = 0;
};

}  // namespace ray::transport
