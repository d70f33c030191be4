#include "runtime/raylet/direct_routes.h"

#include <utility>

#include "runtime/base/hex.h"
#include "runtime/base/logging.h"

// Routes. A caller asks its raylet where an actor is before it calls it directly: an
// actor here answers at once (its worker's socket); for one on another node, that
// node is asked (RouteAsk), which has the actor's worker listen on tcp (encrypted)
// and answers with that endpoint. Calls must run in the order made: a caller with
// calls still queued or unfinished for the actor gets no route yet.
//
// Workers leased across nodes. A caller's tasks of a shape its node cannot fit (work
// pinned to another node by a resource only that node has), or fits but has no room
// for now while another node has (spillback, as Ray's), would otherwise cross both
// raylets each way. Instead the caller's node asks such a node for a lease
// (LeaseAsk); that node leases an idle worker to the caller as it would to a local
// one, has it listen on tcp (encrypted, as for actors called from other nodes), and
// answers with that endpoint. The caller then sends its tasks there directly.
//
// The caller's node cannot read the worker's start gate (it lives in the other host's
// shared memory): calls queued on such a lease are never taken back (see
// TaskSubmitter). A worker that dies while leased is reported to the caller's node
// (PeerLeaseGone); a node that dies, by the caller's node to its callers.

namespace ray::raylet {

using protocol::MessageType;

std::optional<protocol::ActorRouteReply> DirectRoutes::ActorRoute(const Client& caller,
                                                                  const ActorId& actor_id,
                                                                  uint64_t req) {
  using protocol::ActorRouteReply;
  Actor* found = node_.actors.Find(actor_id);
  if (!found) return ActorRouteReply{};
  Actor& a = *found;
  if (a.state != Actor::kAlive || a.killed) return ActorRouteReply{};
  if (!a.remote_node.empty()) {
    // Calls must run in the order they were made: none of this caller's may be on
    // the way there, or wait or run there (its node checks that), unfinished.
    if (a.HasCallsFrom(caller.peer) ||
        node_.remote.HasUnfinishedCall(a.creation.task_id.Binary(), caller.peer)) {
      return ActorRouteReply{};
    }
    uint64_t ask =
        asks_.Open({caller.peer, req, actor_id, a.remote_node, node_.clock.MonoMillis()});
    Tell(a.remote_node, MessageType::kRouteAsk,
                      protocol::RouteAsk{ask, actor_id, caller.peer, node_.node_id});
    return std::nullopt;
  }
  Client* w = node_.clients.Find(a.worker);
  if (!w || w->direct_endpoint.empty()) return ActorRouteReply{};
  // Calls must run in the order they were made: none of this caller's may still wait
  // here. (Its requests arrive in order, so any it sent before asking are here now.)
  if (a.HasCallsFrom(caller.peer)) return ActorRouteReply{};
  a.direct_callers.insert(caller.peer);
  return ActorRouteReply{ActorRouteReply::kDirect, w->direct_endpoint, a.creation.max_retries};
}

void DirectRoutes::OnRouteAsk(const protocol::RouteAsk& ask) {
  protocol::RouteAnswer answer{ask.ask, "", 0};
  Actor* a = node_.actors.Find(ask.actor_id);
  // The asking node sends this after the caller's calls it forwarded here (in order,
  // on the same socket): any of them not finished is still queued or running here.
  if (a && a->remote_node.empty() && a->state == Actor::kAlive && !a->killed &&
      !a->HasCallsFrom(ask.caller)) {
    Client* w = node_.clients.Find(a->worker);
    if (w && !w->tcp_endpoint.empty()) {
      answer.endpoint = w->tcp_endpoint;
      answer.max_task_retries = a->creation.max_retries;
      a->remote_callers.insert({ask.origin_node, ask.caller});
    } else if (w) {
      // Only actors called from other nodes listen on tcp: this one is asked to, and
      // the answer waits for its endpoint (or, if it never comes, the asking node's
      // timeout answers "through the raylets").
      if (!std::exchange(w->tcp_asked, true)) node_.outbox.Send(w->peer, MessageType::kListenTcp);
      w->route_asks.push_back(ask);
      return;
    }
  }
  Tell(ask.origin_node, MessageType::kRouteAnswer, answer);
}

void DirectRoutes::OnRouteAnswer(const protocol::RouteAnswer& answer) {
  // (Expired: the caller was told to ask later.)
  auto asked = asks_.Answered(answer.ask, /*lease=*/false);
  if (!asked) return;
  const RemoteAsks::Ask& pending = *asked;
  protocol::ActorRouteReply reply;
  Actor* a = node_.actors.Find(pending.actor);
  // (Still there, as when asked: else the route may be stale; ask later.)
  if (answer.endpoint.rfind("tcp://", 0) == 0 && a && a->remote_node == pending.node &&
      a->state == Actor::kAlive && !a->killed && node_.clients.Has(pending.caller)) {
    a->direct_callers.insert(pending.caller);
    asks_.NoteEndpoint(answer.endpoint, pending.node);
    reply = {protocol::ActorRouteReply::kDirect, answer.endpoint, answer.max_task_retries,
             /*encrypted=*/true};
  }
  node_.outbox.Send(pending.caller, MessageType::kActorRouteReply, pending.request, reply);
}

void DirectRoutes::OnPeerActorGone(const protocol::PeerActorGone& gone) {
  if (Actor* a = node_.actors.Find(gone.actor_id)) a->direct_callers.erase(gone.caller);
  if (node_.clients.Has(gone.caller)) {
    node_.outbox.Send(gone.caller, MessageType::kActorGone, 0,
                      protocol::ActorGone{gone.actor_id, gone.cause});
  }
}

void DirectRoutes::ExpireAsks() {
  for (const RemoteAsks::Ask& ask : asks_.TakeExpired(node_.clock.MonoMillis())) {
    if (ask.lease) {
      RAY_LOG_WARN(
          "node {} did not answer a lease request in {} ms: it is not asked again for "
          "a while",
          ToHex(ask.node), RemoteAsks::kTimeoutMs);
    } else {
      RAY_LOG_WARN(
          "node {} did not answer a route request for actor {} in {} ms: the calls go "
          "through the raylets",
          ToHex(ask.node), ask.actor.Hex(), RemoteAsks::kTimeoutMs);
    }
    AnswerAskNotNow(ask);
  }
}

void DirectRoutes::AnswerAskNotNow(const RemoteAsks::Ask& ask) {
  if (ask.lease) {
    protocol::LeaseReply reply;
    if (ask.spillback) reply.outcome = protocol::LeaseReply::kBusy;  // (as here)
    node_.outbox.Send(ask.caller, MessageType::kLeaseReply, ask.request, reply);
  } else {
    node_.outbox.Send(ask.caller, MessageType::kActorRouteReply, ask.request,
                      protocol::ActorRouteReply{});
  }
}

std::optional<protocol::LeaseReply> DirectRoutes::RemoteLease(const Client& caller,
                                                              const protocol::LeaseRequest& msg,
                                                              const ResourceSet& need, uint64_t req,
                                                              bool spillback) {
  protocol::LeaseReply here;
  if (spillback) here.outcome = protocol::LeaseReply::kBusy;
  // A node that did not answer an ask lately is not asked again for a while (each
  // ask blocks the caller until answered or expired).
  const int64_t now = node_.clock.MonoMillis();
  auto paused = [&](const std::string& node) { return asks_.LeasesPaused(node, now); };
  std::optional<std::string> node =
      spillback ? node_.placement.RemoteWithRoom(need, paused)
                : node_.placement.ChooseNode(need, node_.available, /*shape_waiting=*/false);
  if (!node || node->empty() || paused(*node)) return here;  // (through the raylet: it decides)
  uint64_t ask = asks_.Open({caller.peer, req, ActorId(), *node, now, /*lease=*/true, spillback});
  // (Counted against the node's room until its reports show the lease: one caller's
  // asks in a burst, or several callers', do not all go to one node on one report.)
  node_.placement.Charge(*node, need, now, "lease " + std::to_string(ask));
  Tell(*node, MessageType::kLeaseAsk,
                    protocol::LeaseAsk{ask, msg, caller.peer, node_.node_id});
  return std::nullopt;
}

void DirectRoutes::OnLeaseAnswer(const protocol::LeaseAnswer& answer) {
  // (Expired: the caller was told "not now". A worker leased meanwhile idles and
  // returns its lease.)
  auto asked = asks_.Answered(answer.ask, /*lease=*/true);
  if (!asked) return;
  const RemoteAsks::Ask& pending = *asked;
  if (!node_.clients.Has(pending.caller)) return;
  protocol::LeaseReply reply;
  if (answer.outcome == protocol::LeaseReply::kGranted && answer.endpoint.rfind("tcp://", 0) == 0) {
    reply = {protocol::LeaseReply::kGranted, answer.endpoint, {}, /*encrypted=*/true};
    asks_.Leased(pending.node, pending.caller, answer.endpoint);
  } else if (answer.outcome == protocol::LeaseReply::kBusy || pending.spillback) {
    reply.outcome = protocol::LeaseReply::kBusy;
  }
  node_.outbox.Send(pending.caller, MessageType::kLeaseReply, pending.request, reply);
}

void DirectRoutes::OnLeaseAsk(const protocol::LeaseAsk& ask) {
  protocol::LeaseAnswer answer;
  answer.ask = ask.ask;
  if (ask.origin_node.empty() || ask.origin_node == node_.node_id || ask.caller.empty()) {
    RAY_LOG_WARN("dropped a lease ask from node '{}' for caller '{}'", ToHex(ask.origin_node),
                 ToHex(ask.caller));
    return;
  }
  Client* w = nullptr;
  protocol::LeaseReply local =
      LocalLeases::Valid(ask.caller, ask.request) && !cannot_listen_tcp_
          ? node_.leases.Lease(ask.caller, ask.request, ask.origin_node, &w)
          : protocol::LeaseReply{};
  answer.outcome = local.outcome;
  if (local.outcome == protocol::LeaseReply::kGranted && w) {
    if (w->tcp_endpoint.empty()) {
      // It listens on tcp only once a caller on another node needs it to: the answer
      // waits for its endpoint (or, if it never comes, the asking node's timeout
      // answers "not now", and the worker returns the lease once idle).
      if (!std::exchange(w->tcp_asked, true)) node_.outbox.Send(w->peer, MessageType::kListenTcp);
      w->lease_answer = {ask.origin_node, answer};
      return;
    }
    answer.endpoint = w->tcp_endpoint;
  }
  Tell(ask.origin_node, MessageType::kLeaseAnswer, answer);
}

void DirectRoutes::OnTcpEndpoint(Client& c, const std::string& endpoint) {
  if (endpoint.rfind("tcp://", 0) != 0) {
    // It cannot listen (nor, on this node, will any other): the asks waiting for it
    // are answered "not now", and callers on other nodes go through the raylets.
    if (!std::exchange(cannot_listen_tcp_, true)) {
      RAY_LOG_WARN(
          "workers here cannot listen on tcp (see the worker's log): calls from other "
          "nodes go through the raylets");
    }
    for (const auto& ask : std::exchange(c.route_asks, {})) {
      Tell(ask.origin_node, MessageType::kRouteAnswer,
                        protocol::RouteAnswer{ask.ask, "", 0});
    }
    EndWaitingLeaseAnswer(c);
    return;
  }
  c.tcp_endpoint = endpoint;
  // The answers that waited for it.
  for (const auto& ask : std::exchange(c.route_asks, {})) OnRouteAsk(ask);
  if (auto waiting = std::exchange(c.lease_answer, std::nullopt)) {
    auto& [node, answer] = *waiting;
    if (c.leased_from == node) {
      answer.endpoint = c.tcp_endpoint;
    } else {
      answer.outcome = protocol::LeaseReply::kNotNow;  // that lease is over: ask again
    }
    Tell(node, MessageType::kLeaseAnswer, answer);
  }
}

void DirectRoutes::WorkerGone(Client& w, const std::string& cause) {
  EndWaitingLeaseAnswer(w);
  if (w.leased_to.empty() || w.leased_from.empty()) return;
  // (The caller's node knows the worker by its tcp endpoint.)
  Tell(w.leased_from, MessageType::kPeerLeaseGone,
                    protocol::PeerLeaseGone{w.leased_to, {w.tcp_endpoint, cause}});
}

void DirectRoutes::EndWaitingLeaseAnswer(Client& w) {
  if (auto waiting = std::exchange(w.lease_answer, std::nullopt)) {
    auto& [node, answer] = *waiting;
    answer.outcome = protocol::LeaseReply::kNotNow;
    answer.endpoint.clear();
    Tell(node, MessageType::kLeaseAnswer, answer);
  }
}

void DirectRoutes::OnPeerLeaseGone(const protocol::PeerLeaseGone& gone) {
  // (Only for a lease granted to that caller here: else a peer could make a caller
  // drop a live worker and run its calls twice.)
  if (asks_.LeaseGone(gone.caller, gone.gone.endpoint) && node_.clients.Has(gone.caller)) {
    node_.outbox.Send(gone.caller, MessageType::kLeaseGone, 0, gone.gone);
  }
}

void DirectRoutes::NodeDied(const std::string& node_id) {
  // Asks waiting for it are answered now ("not now", "through the raylets").
  for (const RemoteAsks::Ask& ask : asks_.TakeAsksTo(node_id)) AnswerAskNotNow(ask);
  // Workers leased from here to callers there work for nobody now.
  for (auto& [peer, w] : node_.clients.all()) {
    if (w.leased_from == node_id) node_.outbox.Send(peer, MessageType::kRevokeLease);
  }
  for (const auto& [caller, endpoint] : asks_.TakeLeasesOn(node_id)) {
    if (!node_.clients.Has(caller)) continue;
    node_.outbox.Send(caller, MessageType::kLeaseGone, 0,
                      protocol::LeaseGone{endpoint, "its node " + ToHex(node_id) + " died"});
  }
}

}  // namespace ray::raylet
