#pragma once
// Raylet-to-raylet traffic: tasks placed on other nodes, and objects pulled from
// them in chunks. Each raylet listens on one tcp ROUTER socket for its peers and
// keeps one DEALER per peer it talks to. A peer must first say PeerHello with the
// cluster token; anything else from an unknown peer is logged and dropped.
//
// Pulls are deduplicated: however many readers on this node want an object, one
// transfer runs. A shared-memory object arrives into a segment of this node's
// store, written chunk by chunk and sealed when complete; a transfer cut short
// leaves nothing behind. The sender keeps the segment mapped and stays a few chunks
// ahead of the receiver's acks, so a transfer holds little memory on either side; at
// most kMaxActiveServes transfers send at once, the others wait their turn in order
// (an object read by many nodes at once would otherwise hold a window of chunks for
// each of them). A transfer whose receiver has not acked for kStalledServeMs (it
// dropped the pull, or is slow) no longer counts: it cannot hold up the others. On
// the receiving side, a transfer that got no chunk for kStalledPullMs is dropped and
// its object looked for again (TakeStalledPulls).
// Once the last chunk of an object is on its way to a node, up to kMaxActiveServes of
// the transfers of it still waiting here are sent there instead (PullElsewhere; that
// node serves them once its copy is complete): an object many nodes read spreads
// from the nodes that have it, not from its first node alone. Chunks are taken only
// from the node a pull is sent to now.
//
// Driven by the raylet's event loop: single-threaded, no locks.

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <zmq.hpp>

#include "runtime/base/hex.h"
#include "runtime/base/logging.h"
#include "runtime/base/status.h"
#include "runtime/base/clock.h"
#include "runtime/ids/ids.h"
#include "runtime/object_store/object_store.h"
#include "runtime/object_store/segment_writer.h"
#include "runtime/serialization/protocol.h"
#include "runtime/transport/transport.h"

namespace ray::raylet {

class ObjectManager {
 public:
  struct Handlers {
    // A peer (identified by `peer`) wants an object: answer with Serve(peer, ...)
    // once the object exists here.
    std::function<void(const std::string& peer, const ObjectId& id)> pull_requested;
    std::function<void(protocol::ForwardTask task)> task_forwarded;
    std::function<void(const protocol::TaskFinished& finished)> task_finished;
    // A pulled object is complete here (inline, error, or a sealed segment), from the
    // node `from` (its node id).
    std::function<void(const protocol::ObjectPayload& object, const std::string& from)>
        object_arrived;
    // A peer asks this node to kill an actor it hosts.
    std::function<void(const protocol::ActorKill& kill)> actor_kill = nullptr;
    // The dashboard asks for this node's logs: the answer goes back to it.
    std::function<protocol::LogsReply(const protocol::LogsRequest& request)> logs_requested =
        nullptr;
    // Direct calls across nodes (protocol::RouteAsk): a node asks for an actor's
    // route, or answers; an actor called directly from another node is gone.
    std::function<void(const protocol::RouteAsk& ask)> route_asked = nullptr;
    std::function<void(const protocol::RouteAnswer& answer)> route_answered = nullptr;
    std::function<void(const protocol::PeerActorGone& gone)> actor_gone = nullptr;
    // Leases across nodes (protocol::LeaseAsk): a node asks for a worker here, or
    // answers; a worker leased to a caller on this node died.
    std::function<void(const protocol::LeaseAsk& ask)> lease_asked = nullptr;
    std::function<void(const protocol::LeaseAnswer& answer)> lease_answered = nullptr;
    std::function<void(const protocol::PeerLeaseGone& gone)> lease_gone = nullptr;
    // Holds across nodes (peer_holds.h): a node's borrows and copies to drop, and
    // the acknowledgement of this node's borrows.
    std::function<void(const protocol::PeerHolds& holds)> holds = nullptr;
    std::function<void(const protocol::PeerHoldsAck& ack)> holds_acked = nullptr;
  };

  // `clock` (what pull and push timeouts read) outlives this.
  ObjectManager(NodeId self, std::string token, std::string store_tag, Handlers handlers,
                const Clock& clock = Clock::System());

  // Listens on tcp://ip:* and returns the endpoint.
  Result<std::string> Listen(const std::string& ip);
  // Where peers are (node id -> tcp endpoint); updated from the cluster view.
  void SetPeerAddress(const std::string& node_id, const std::string& address);
  // Forgets a dead peer: its connection and the pulls in flight from it, which are
  // returned so that the caller can look for the objects elsewhere.
  std::vector<ObjectId> ForgetPeer(const std::string& node_id);

  void AddPollItems(std::vector<zmq::pollitem_t>& items);
  void Poll();

  void ForwardTask(const std::string& node_id, const protocol::ForwardTask& task);
  void NotifyFinished(const std::string& node_id, const protocol::TaskFinished& finished);
  void KillActor(const std::string& node_id, const protocol::ActorKill& kill);
  // A message that needs no answer from the peer's socket (kRouteAsk, kRouteAnswer,
  // kPeerActorGone, kPeerHolds, ...); false (dropped) if the peer's address is unknown.
  template <typename T>
  bool Tell(const std::string& node_id, protocol::MessageType type, const T& body) {
    return TellFrame(node_id, protocol::Encode(type, 0, body));
  }
  // The same, with the frame encoded already.
  bool TellFrame(const std::string& node_id, const std::string& frame) {
    auto* d = DealerFor(node_id);
    if (d) d->Send(frame);
    return d != nullptr;
  }
  // Starts pulling `id` from `node_id`; false if a pull of it is already running.
  bool Pull(const ObjectId& id, const std::string& node_id);
  bool Pulling(const ObjectId& id) const { return pulls_.count(id) > 0; }
  // Drops a pull in flight: chunks of it that come later are ignored (and the segment
  // written so far removed).
  void CancelPull(const ObjectId& id) { pulls_.erase(id); }
  // The pulls whose transfer began but got no chunk for kStalledPullMs (the sender
  // stopped: it dropped the transfer, or an ack was lost), dropped as CancelPull does
  // and returned, to be looked for again. A pull whose first chunk has not come waits
  // for its object to exist on the node asked, however long that takes.
  std::vector<ObjectId> TakeStalledPulls();
  static constexpr int64_t kStalledPullMs = 30000;
  // Sends a local object to the peer that asked for it.
  void Serve(const std::string& peer, const protocol::ObjectPayload& object);

 private:
  struct Transfer {
    std::string node_id;
    std::unique_ptr<object_store::SegmentWriter> writer;
    uint64_t received = 0;
    int64_t started_ms = 0;      // asked
    int64_t first_chunk_ms = 0;  // the first chunk came
    int64_t last_chunk_ms = 0;   // ...and the last one so far
    // The node first asked, once it sent the pull on to `node_id` (PullElsewhere): it
    // serves the object after all if that node answers with an error.
    std::string first_node;
  };
  // The pulls for which pred(id, transfer) holds, dropped (CancelPull), their ids.
  template <typename Pred>
  std::vector<ObjectId> TakePullsIf(Pred&& pred);
  static constexpr size_t kMaxActiveServes = 4;
  static constexpr int64_t kStalledServeMs = 1000;
  // The transfers sending now whose receiver acked within kStalledServeMs.
  size_t ActiveServes() const;
  // A shared-memory object being sent to a peer.
  struct Outgoing {
    std::shared_ptr<object_store::Mapping> mapping;
    protocol::ObjectChunk chunk;  // id, state and total; offset: the next to send
    int64_t acked_ms = 0;         // the peer's last ack (or the start)
    bool complete = false;        // its last chunk was handed to ZeroMQ
  };
  // Starts sending `out` to `peer` (its first window of chunks).
  void StartServe(const std::string& peer, Outgoing out);
  // Starts the waiting transfers while fewer than kMaxActiveServes send.
  void ServeWaiting();
  using OutgoingKey = std::pair<std::string, ObjectId>;  // (peer, object)
  transport::Dealer* DealerFor(const std::string& node_id);
  void HandleRequest(const transport::Incoming& in);
  // Decodes a peer's message and hands it to `handler` (logged and dropped if it is
  // malformed or nothing here handles it).
  template <typename T>
  void Dispatch(const std::string& peer, std::string_view body, const char* what,
                const std::function<void(const T&)>& handler) {
    auto msg = protocol::DecodeBody<T>(body, what);
    if (msg.ok() && handler) return handler(*msg);
    RAY_LOG_WARN("peer {}: {}", ToHex(peer),
                 msg.ok() ? std::string(what) + " not handled here" : msg.status().message());
  }
  // `handler`, for messages whose from_node is the sending peer's node (others are
  // logged and dropped).
  template <typename T>
  std::function<void(const T&)> FromSender(const std::string& peer,
                                           const std::function<void(const T&)>& handler) {
    if (!handler) return nullptr;
    return [peer, handler](const T& msg) {
      if (peer.compare(0, msg.from_node.size(), msg.from_node) == 0 &&
          msg.from_node.size() == NodeId::kSize) {
        return handler(msg);
      }
      RAY_LOG_WARN("peer {}: dropped a message that names another node as its sender",
                   ToHex(peer));
    };
  }
  // A chunk from node `sender`: `frame` the ObjectChunk, `part` a segment's bytes; or
  // its PullElsewhere.
  void HandleChunk(const std::string& sender, const std::string& frame, const zmq::message_t& part);
  // Asks node `node_id` for object `id` (PullObject); false if it cannot be reached.
  bool AskFor(const std::string& node_id, const ObjectId& id);
  // Node `from`, asked for an object, sends the pull on to another node.
  void PullElsewhere(const std::string& from, const protocol::PullElsewhere& m);
  // The last chunk of `id` is on its way to peer `served`: transfers of it waiting
  // their turn here are sent to that node instead (up to kMaxActiveServes of them).
  void SendWaitingTo(const ObjectId& id, const std::string& served);
  // Sends the transfer's next chunk; false once every chunk went (or the peer is gone).
  bool SendChunk(const std::string& peer, Outgoing& out);
  void Ack(const std::string& peer, const ObjectId& id);

  const Clock& clock_;
  NodeId self_;
  std::string token_;
  std::string store_tag_;
  Handlers handlers_;
  transport::Router router_;
  std::set<std::string> authorized_;  // peer identities that presented the token
  std::map<std::string, std::string> addresses_;  // node id -> tcp endpoint
  std::map<std::string, std::unique_ptr<transport::Dealer>> dealers_;  // by node id
  std::map<ObjectId, Transfer> pulls_;
  // Sending: at most kMaxActiveServes that the receiver acks (ActiveServes), and any
  // stalled ones until kOutgoingTimeoutMs.
  std::map<OutgoingKey, Outgoing> outgoing_;
  std::deque<std::pair<std::string, Outgoing>> waiting_serves_;  // (peer, transfer), in order
};

}  // namespace ray::raylet
