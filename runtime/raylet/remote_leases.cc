#include "runtime/raylet/raylet_impl.h"

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
// (PeerLeaseGone); a node that dies, by the caller's node to its callers. A direct
// call (leased, or to an actor) that leaves results in the other node's store is
// reported by its caller (RanElsewhere): its node then knows where to pull them from
// (without asking the GCS), and keeps a normal task's lineage, as for the tasks it
// forwards.

namespace ray::raylet {

std::optional<protocol::LeaseReply> Raylet::RemoteLease(const Client& caller,
                                                        const protocol::LeaseRequest& msg,
                                                        const ResourceSet& need, uint64_t req,
                                                        bool spillback) {
  protocol::LeaseReply here;
  if (spillback) here.outcome = protocol::LeaseReply::kBusy;
  // A node that did not answer an ask lately is not asked again for a while (each
  // ask blocks the caller until answered or expired).
  const int64_t now = clock_.MonoMillis();
  auto paused = [&](const std::string& node) { return asks_.LeasesPaused(node, now); };
  std::optional<std::string> node =
      spillback ? placement_.RemoteWithRoom(need, paused)
                : placement_.ChooseNode(need, available_, /*shape_waiting=*/false);
  if (!node || node->empty() || paused(*node)) return here;  // (through the raylet: it decides)
  uint64_t ask = asks_.Open({caller.peer, req, ActorId(), *node, now, /*lease=*/true, spillback});
  // (Counted against the node's room until its reports show the lease: one caller's
  // asks in a burst, or several callers', do not all go to one node on one report.)
  placement_.Charge(*node, need, now, "lease " + std::to_string(ask));
  peers_->Tell(*node, MessageType::kLeaseAsk,
               protocol::LeaseAsk{ask, msg, caller.peer, node_id_.Binary()});
  return std::nullopt;
}

void Raylet::OnLeaseAnswer(const protocol::LeaseAnswer& answer) {
  // (Expired: the caller was told "not now". A worker leased meanwhile idles and
  // returns its lease.)
  auto asked = asks_.Answered(answer.ask, /*lease=*/true);
  if (!asked) return;
  const RemoteAsks::Ask& pending = *asked;
  if (!clients_.Has(pending.caller)) return;
  protocol::LeaseReply reply;
  if (answer.outcome == protocol::LeaseReply::kGranted && answer.endpoint.rfind("tcp://", 0) == 0) {
    reply = {protocol::LeaseReply::kGranted, answer.endpoint, {}, /*encrypted=*/true};
    asks_.Leased(pending.node, pending.caller, answer.endpoint);
  } else if (answer.outcome == protocol::LeaseReply::kBusy || pending.spillback) {
    reply.outcome = protocol::LeaseReply::kBusy;
  }
  SendMsg(pending.caller, MessageType::kLeaseReply, pending.request, reply);
}

void Raylet::OnLeaseAsk(const protocol::LeaseAsk& ask) {
  protocol::LeaseAnswer answer;
  answer.ask = ask.ask;
  if (ask.origin_node.empty() || ask.origin_node == node_id_.Binary() || ask.caller.empty()) {
    RAY_LOG_WARN("dropped a lease ask from node '{}' for caller '{}'", Hex(ask.origin_node),
                 Hex(ask.caller));
    return;
  }
  Client* w = nullptr;
  protocol::LeaseReply local = LocalLeases::Valid(ask.caller, ask.request) && !cannot_listen_tcp_
                                   ? leases_.Lease(ask.caller, ask.request, ask.origin_node, &w)
                                   : protocol::LeaseReply{};
  answer.outcome = local.outcome;
  if (local.outcome == protocol::LeaseReply::kGranted && w) {
    if (w->tcp_endpoint.empty()) {
      // It listens on tcp only once a caller on another node needs it to: the answer
      // waits for its endpoint (or, if it never comes, the asking node's timeout
      // answers "not now", and the worker returns the lease once idle).
      if (!std::exchange(w->tcp_asked, true)) Send(w->peer, MessageType::kListenTcp, 0, "");
      w->lease_answer = {ask.origin_node, answer};
      return;
    }
    answer.endpoint = w->tcp_endpoint;
  }
  peers_->Tell(ask.origin_node, MessageType::kLeaseAnswer, answer);
}

void Raylet::HandleTcpEndpoint(Client& c, std::string_view body) {
  auto msg = DecodeFrom<protocol::TcpEndpoint>(c.peer, body, "TcpEndpoint");
  if (!msg || c.is_driver) return;
  if (msg->endpoint.rfind("tcp://", 0) != 0) {
    // It cannot listen (nor, on this node, will any other): the asks waiting for it
    // are answered "not now", and callers on other nodes go through the raylets.
    if (!std::exchange(cannot_listen_tcp_, true)) {
      RAY_LOG_WARN("workers here cannot listen on tcp (see the worker's log): calls from other "
                   "nodes go through the raylets");
    }
    for (const auto& ask : std::exchange(c.route_asks, {})) {
      peers_->Tell(ask.origin_node, MessageType::kRouteAnswer, protocol::RouteAnswer{ask.ask, "", 0});
    }
    AnswerLeaseAskNotNow(c);
    return;
  }
  c.tcp_endpoint = msg->endpoint;
  // The answers that waited for it.
  for (const auto& ask : std::exchange(c.route_asks, {})) OnRouteAsk(ask);
  if (auto waiting = std::exchange(c.lease_answer, std::nullopt)) {
    auto& [node, answer] = *waiting;
    if (c.leased_from == node) {
      answer.endpoint = c.tcp_endpoint;
    } else {
      answer.outcome = protocol::LeaseReply::kNotNow;  // that lease is over: ask again
    }
    peers_->Tell(node, MessageType::kLeaseAnswer, answer);
  }
}

void Raylet::AnswerLeaseAskNotNow(Client& w) {
  if (auto waiting = std::exchange(w.lease_answer, std::nullopt)) {
    auto& [node, answer] = *waiting;
    answer.outcome = protocol::LeaseReply::kNotNow;
    answer.endpoint.clear();
    peers_->Tell(node, MessageType::kLeaseAnswer, answer);
  }
}

void Raylet::OnPeerLeaseGone(const protocol::PeerLeaseGone& gone) {
  // (Only for a lease granted to that caller here: else a peer could make a caller
  // drop a live worker and run its calls twice.)
  if (asks_.LeaseGone(gone.caller, gone.gone.endpoint) && clients_.Has(gone.caller)) {
    SendMsg(gone.caller, MessageType::kLeaseGone, 0, gone.gone);
  }
}

void Raylet::RemoteWorkersLost(const std::string& node_id) {
  // Asks waiting for it are answered now ("not now", "through the raylets").
  for (const RemoteAsks::Ask& ask : asks_.TakeAsksTo(node_id)) AnswerAskNotNow(ask);
  // Workers leased from here to callers there work for nobody now.
  for (auto& [peer, w] : clients_.all()) {
    if (w.leased_from == node_id) Send(peer, MessageType::kRevokeLease, 0, "");
  }
  for (const auto& [caller, endpoint] : asks_.TakeLeasesOn(node_id)) {
    if (!clients_.Has(caller)) continue;
    SendMsg(caller, MessageType::kLeaseGone, 0,
            protocol::LeaseGone{endpoint, "its node " + Hex(node_id) + " died"});
  }
}

void Raylet::HandleRanElsewhere(Client& c, std::string_view body) {
  auto msg = DecodeFrom<protocol::RanElsewhere>(c.peer, body, "RanElsewhere");
  if (!msg) return;
  const TaskSpec& t = msg->spec;
  // (A normal task's spec may run again here: it is checked as a submission is.)
  Status valid = Status::Ok();
  if (t.kind == ri::kNormalTask) {
    valid = CheckTaskSpec(t);
  } else if (t.kind != ri::kActorTask || t.task_id.IsNil() ||
             t.num_returns < 1 || t.num_returns > 1000) {
    valid = Status::InvalidArgument("not a normal task, nor an actor call with an id and returns");
  }
  if (!valid.ok()) {
    RAY_LOG_WARN("peer {}: dropped a RanElsewhere: {}", Hex(c.peer), valid.message());
    return;
  }
  const std::string* node = asks_.NodeOfEndpoint(msg->endpoint);
  if (!node) {
    RAY_LOG_WARN("peer {}: dropped a RanElsewhere naming endpoint {}, which no route or lease "
                 "from here gave",
                 Hex(c.peer), msg->endpoint);
    return;
  }
  const std::string where = *node;
  remote_.RanOn(std::move(msg->spec), where);
  // Its node died before this came: its results are made again now (or fail), as for
  // the node's other objects when it died.
  if (!placement_.Alive(where)) RebuildObjectsOf(where);
}

}  // namespace ray::raylet
