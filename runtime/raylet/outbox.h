#pragma once
// Frames the raylet sends to its clients wait here until the end of a loop turn, so
// that a burst to one client (tasks, replies) leaves as one batch: one message per
// client and turn, clients in the order they were first sent to in the turn.
//
// Bookkeeping: no sockets (the raylet gives Flush what sends a message); the raylet
// owns one (not thread-safe).

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/serialization/protocol.h"

namespace ray::raylet {

class Outbox {
 public:
  void Queue(const std::string& peer, std::string frame);
  // Queues a message of `type` with `body` (a string as it is, else msgpack).
  template <typename T = std::string>
  void Send(const std::string& peer, protocol::MessageType type, uint64_t req = 0,
            const T& body = T()) {
    Queue(peer, protocol::Encode(type, req, body));
  }
  // Sends what waits, one message per peer: its single frame, or a batch
  // (protocol::EncodeBatch) of its frames. `keep(peer)`: whether the peer is still a
  // client; the entries of peers that are not are dropped, so that peers that come
  // and go (drivers) do not accumulate them.
  void Flush(const std::function<void(const std::string& peer, const std::string& message)>& send,
             const std::function<bool(const std::string& peer)>& keep);
  bool empty() const { return order_.empty(); }

 private:
  std::unordered_map<std::string, std::vector<std::string>> frames_;  // peer -> frames
  std::vector<std::string> order_;  // peers with frames, in first-queued order
};

}  // namespace ray::raylet
