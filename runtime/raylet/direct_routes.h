#pragma once
// Where callers send their calls directly, past the raylets: the route to an actor
// (its worker's socket here, or, for an actor on another node, asked of that node),
// and leases of workers on other nodes (a shape this node cannot fit, or spillback
// when it has no room); and the other side of both, for callers on other nodes
// (a worker here listens on tcp once one needs it). RemoteAsks keeps the asks in
// flight and what they granted.
//
// The raylet loop owns one (not thread-safe). It reads and updates the raylet's
// clients, actors and placement, leases local workers through LocalLeases, tells
// other nodes through Node::tell (the peer link), and queues replies in the outbox.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "runtime/base/clock.h"
#include "runtime/ids/ids.h"
#include "runtime/raylet/actor_directory.h"
#include "runtime/raylet/client_table.h"
#include "runtime/raylet/local_leases.h"
#include "runtime/raylet/outbox.h"
#include "runtime/raylet/remote_asks.h"
#include "runtime/raylet/remote_nodes.h"
#include "runtime/scheduler/placement.h"
#include "runtime/scheduler/resources.h"
#include "runtime/serialization/protocol.h"

namespace ray::raylet {

class DirectRoutes {
 public:
  struct Node {
    std::string node_id;  // this node's
    ClientTable& clients;
    ActorDirectory& actors;
    const RemoteNodes& remote;  // (a caller's calls still unfinished on another node)
    scheduler::Placement& placement;
    const ResourceSet& available;
    LocalLeases& leases;
    // Sends a frame to node `node_id` over the peer link (ObjectManager::Tell); false
    // (dropped) if its address is unknown.
    std::function<bool(const std::string& node_id, const std::string& frame)> tell;
    Outbox& outbox;
    const Clock& clock;
  };

  explicit DirectRoutes(Node node) : node_(std::move(node)) {}

  // Where `caller` may send calls to the actor; nullopt: the answer comes later (the
  // actor's node is asked), to request `req`. An empty reply: through the raylet.
  std::optional<protocol::ActorRouteReply> ActorRoute(const Client& caller, const ActorId& actor_id,
                                                      uint64_t req);
  // A caller here wants a worker of shape `need` that this node cannot fit, or
  // (`spillback`) one it fits but has no room for now: a node that fits it (or has
  // room) is asked; nullopt: the reply comes later, to request `req`.
  std::optional<protocol::LeaseReply> RemoteLease(const Client& caller,
                                                  const protocol::LeaseRequest& msg,
                                                  const ResourceSet& need, uint64_t req,
                                                  bool spillback = false);

  // From other nodes: asks for routes and leases here, their answers, and news of
  // actors and leased workers there that are gone.
  void OnRouteAsk(const protocol::RouteAsk& ask);
  void OnRouteAnswer(const protocol::RouteAnswer& answer);
  void OnPeerActorGone(const protocol::PeerActorGone& gone);
  void OnLeaseAsk(const protocol::LeaseAsk& ask);
  void OnLeaseAnswer(const protocol::LeaseAnswer& answer);
  void OnPeerLeaseGone(const protocol::PeerLeaseGone& gone);

  // Worker `c` listens on tcp at `endpoint` (not a tcp:// one: it cannot, and nor can
  // any worker here): the answers that waited for it go.
  void OnTcpEndpoint(Client& c, const std::string& endpoint);
  // Worker `w` is gone (`cause`): the lease answer waiting for its tcp endpoint says
  // "not now", and the node of a caller it was leased to hears of it (PeerLeaseGone).
  void WorkerGone(Client& w, const std::string& cause);
  // Node `node_id` died: asks waiting for it are answered, workers here leased to
  // callers there are revoked, callers here hear of their leased workers there.
  void NodeDied(const std::string& node_id);
  // `caller` is gone: what was asked and granted for it is forgotten.
  void CallerGone(const std::string& caller) { asks_.CallerGone(caller); }
  // Asks unanswered for RemoteAsks::kTimeoutMs are answered as AnswerAskNotNow does.
  void ExpireAsks();
  // The node whose worker's endpoint (a route's or lease's) a caller here was given.
  const std::string* NodeOfEndpoint(const std::string& endpoint) const {
    return asks_.NodeOfEndpoint(endpoint);
  }

 private:
  // The lease answer that waits for worker `w`'s tcp endpoint (if one does) says "not
  // now": the worker is gone, or cannot listen on tcp.
  void EndWaitingLeaseAnswer(Client& w);
  // Answers an ask as refused: "through the raylet" (route asks) or "not now" (lease
  // asks; "busy" for a spillback).
  void AnswerAskNotNow(const RemoteAsks::Ask& ask);
  template <typename T>
  bool Tell(const std::string& node_id, protocol::MessageType type, const T& body) {
    return node_.tell(node_id, protocol::Encode(type, 0, body));
  }

  Node node_;
  RemoteAsks asks_;
  bool cannot_listen_tcp_ = false;  // workers here cannot listen on tcp: "not now" to asks
};

}  // namespace ray::raylet
