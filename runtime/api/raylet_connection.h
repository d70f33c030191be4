#pragma once
// A process's connection to its node's raylet: requests and their replies, and every
// other frame the raylet sends, handed to the handler its type was registered with.
// While it waits, it also polls the sockets of the parts that added a PollSource
// (direct calls), whose frames those parts handle themselves. So the parts of the
// client (objects, submitter, receiver) never call each other back: frames reach
// them through here.
//
// Not thread-safe by itself: with SetLock, any thread holding that ClientLock may use
// it, and the threads waiting in Pump or Request share the sockets through the lock's
// pump role (client_lock.h): one polls, the others sleep until it has handled
// something; a reply is kept for the thread that awaits it. Without a lock, one
// thread. A frame whose type has no handler is dropped with a warning; so is a reply
// to a request no longer awaited.

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "runtime/api/client_lock.h"
#include "runtime/base/logging.h"
#include "runtime/base/status.h"
#include "runtime/serialization/protocol.h"
#include "runtime/transport/transport.h"

namespace ray::core {

class RayletConnection {
 public:
  // Connects as `reg.worker_id` (its identity on the socket) and registers; the raylet's answer is node().
  static Result<std::unique_ptr<RayletConnection>> Connect(const std::string& endpoint,
                                                           const protocol::RegisterClient& reg);

  using Handler = std::function<void(std::string_view body)>;
  void OnMessage(protocol::MessageType type, Handler handler);
  // The same for a message whose body is a T: the handler gets it decoded; a body
  // that is not a T is dropped with a warning naming `what`.
  template <typename T>
  void OnMessage(protocol::MessageType type, const char* what, std::function<void(T)> handler) {
    OnMessage(type, [what, handler = std::move(handler)](std::string_view body) {
      auto msg = protocol::DecodeBody<T>(body, what);
      if (!msg.ok()) {
        RAY_LOG_WARN("dropped a frame from the raylet: {}", msg.status().message());
        return;
      }
      handler(std::move(msg).value());
    });
  }
  // Sockets polled with the raylet's while waiting: `collect` appends them, and
  // `ready` gets back the items it appended once the poll returns. Neither may wait
  // (no Pump or Request inside).
  struct PollSource {
    std::function<void(std::vector<zmq::pollitem_t>&)> collect;
    std::function<void(const zmq::pollitem_t* items, size_t n)> ready;
  };
  void AddPollSource(PollSource source);
  // Frames that ride along with the next ones sent (frees due; see ObjectClient):
  // `all` asks for everything pending, else only once enough have gathered.
  void SetPiggyback(std::function<std::string(bool all)> frames);

  // One-way frames have backpressure: when kSendLimit frames wait here unread by the
  // raylet (which itself holds at most 64 per client), Send waits until it reads
  // some, or drops the frame once the raylet is dead (the next request fails).
  void Send(const std::string& frame);
  static constexpr int kSendLimit = 64;
  // Sends `frame` after the piggybacked frames due (`all`: every one pending).
  void SendWithPiggyback(std::string frame, bool all);
  // Only the piggybacked frames due, if any.
  void SendPiggyback();
  // Sends a request (with every piggybacked frame) and waits for its reply, handling
  // other frames meanwhile. Unavailable if the raylet dies.
  Result<std::string> Request(protocol::MessageType type, const std::string& body,
                              protocol::MessageType reply_type);
  // The same, but nullopt once `settled` turns true while waiting (the reply is then
  // dropped when it comes).
  Result<std::optional<std::string>> Request(protocol::MessageType type, const std::string& body,
                                             protocol::MessageType reply_type,
                                             const std::function<bool()>& settled);
  // A typed request: `req` encoded, the reply decoded as a Reply.
  template <typename Reply, typename Req>
  Result<Reply> Ask(protocol::MessageType type, const Req& req, protocol::MessageType reply_type) {
    RAY_ASSIGN_OR_RETURN(std::string body, Request(type, internal::Pack(req), reply_type));
    return protocol::DecodeBody<Reply>(body, "reply");
  }
  // A named raylet operation (CallRequest): its reply body, or its error.
  Result<std::string> Call(const std::string& op, const std::string& body);
  // Waits up to timeout_ms (-1: for ever) for frames and handles them; false if the
  // raylet died.
  bool Pump(int timeout_ms);

  // The lock its users hold (outlives this); from now on waits share the sockets.
  void SetLock(ClientLock* lock) { lock_ = lock; }

  const std::string& identity() const { return identity_; }
  const protocol::RegisterReply& node() const { return node_; }

 private:
  explicit RayletConnection(const std::string& identity) : identity_(identity), dealer_(identity) {}
  // The next frame from the raylet, batches taken apart; frames on the polled
  // sockets are handled meanwhile (then nullopt, perhaps before the timeout).
  std::optional<std::string> Receive(int timeout_ms);
  void Dispatch(std::string_view frame);
  // Whether the raylet process lives (as of the last look, at most a second ago; once
  // seen dead, for good).
  bool RayletAlive();
  // One poll by the pump role's holder (false: another thread has it, and the caller
  // slept until it handled something or timeout_ms passed).
  bool PumpOnce(int timeout_ms, std::optional<std::string>* frame);

  std::string identity_;
  transport::Dealer dealer_;
  protocol::RegisterReply node_;
  uint64_t next_request_ = 1;
  std::unordered_map<uint16_t, Handler> handlers_;
  std::vector<PollSource> sources_;
  std::function<std::string(bool)> piggyback_;
  std::deque<std::string> inbox_;           // the rest of a batch being read
  std::unordered_set<uint64_t> abandoned_;  // requests whose replies are not awaited
  // Requests awaited (by reply type), and replies that came for them while another
  // thread pumped.
  std::unordered_map<uint64_t, protocol::MessageType> awaited_;
  std::unordered_map<uint64_t, std::string> replies_;
  ClientLock* lock_ = nullptr;
  std::vector<zmq::pollitem_t> poll_items_;  // Receive's, kept to reuse
  std::vector<size_t> source_items_;          // how many of them each source added
  int64_t next_alive_check_ms_ = 0;
  bool raylet_dead_ = false;
};

}  // namespace ray::core
