#include "runtime/raylet/local_leases.h"

#include <ray/wire.h>

#include "runtime/base/hex.h"
#include "runtime/base/logging.h"

namespace ray::raylet {

using protocol::LeaseReply;
using protocol::MessageType;

bool LocalLeases::Valid(const std::string& caller, const protocol::LeaseRequest& req,
                        const char* what) {
  Status valid = protocol::CheckResourceRequest(req.resources);
  if (!valid.ok()) {
    RAY_LOG_WARN("peer {}: refused {}: {}", ToHex(caller), what, valid.message());
  }
  return valid.ok();
}

LeaseReply LocalLeases::Lease(const std::string& caller, const protocol::LeaseRequest& req,
                              const std::string& caller_node, Client** granted) {
  ResourceSet need = scheduler::LeaseShapeOf(req.resources);
  switch (policy_.Decide(need, node_.ready, node_.available)) {
    case scheduler::LeasePolicy::Answer::kNotNow:
      return {};
    case scheduler::LeasePolicy::Answer::kBusy:
      return {LeaseReply::kBusy, "", {}};
    case scheduler::LeasePolicy::Answer::kMayGrant:
      break;
  }
  Client* idle = node_.clients.FirstIdle();
  if (!idle) {
    if (node_.clients.starting() == 0) node_.start_workers(1);  // for the next ask
    return {};
  }
  Client& w = *idle;
  if (w.direct_endpoint.empty()) return {};
  protocol::LeaseGate gate = Grant(w, caller, need, req.job_id, caller_node);
  if (granted) *granted = &w;
  return {LeaseReply::kGranted, w.direct_endpoint, gate};
}

protocol::LeaseGate LocalLeases::Grant(Client& w, const std::string& caller,
                                       const ResourceSet& shape, const JobId& job_id,
                                       const std::string& caller_node) {
  node_.clients.TakeFirstIdle();  // (w is FirstIdle(""))
  w.Bind("");                     // leased tasks have no runtime environment (see TaskSubmitter)
  node_.available.Subtract(shape);
  w.held = w.lease_shape = shape;
  w.state = Client::kBusy;
  w.leased_to = caller;
  w.leased_from = caller_node;
  policy_.Granted(w.peer, shape);
  w.last_job = job_id;
  w.dispatched_ms = node_.clock.NowMillis();
  node_.outbox.Send(w.peer, MessageType::kLeaseGranted, 0,
                    protocol::LeaseGranted{caller, caller_node.empty() ? 0 : kRemoteFirstCallMs});
  // Read while the worker is idle: its starts and lease count do not move until the
  // holder's first call (read by the holder itself, the worker may have ended this lease
  // and started the raylet's tasks meanwhile).
  protocol::LeaseGate gate;
  if (protocol::StartGate* g = w.Gate()) gate = {true, g->Starts(), g->Lease()};
  return gate;
}

void LocalLeases::Want(const std::string& caller, const protocol::LeaseRequest& req,
                       const ResourceSet& shape) {
  policy_.Wanted({caller, shape, ray::internal::Pack(req)});
}

void LocalLeases::Offer() {
  while (policy_.HasWants()) {
    auto want = policy_.NextOffer(node_.ready, node_.available);
    if (!want) return;
    Client* idle = node_.clients.FirstIdle();
    if (!idle || idle->direct_endpoint.empty()) {
      if (!idle && node_.clients.starting() == 0) node_.start_workers(1);
      return;  // (offered once one is idle)
    }
    policy_.Offered(want->caller, want->shape);
    if (!node_.clients.Has(want->caller)) continue;
    auto req =
        ray::internal::Unpack<protocol::LeaseRequest>(want->request.data(), want->request.size());
    protocol::LeaseGate gate = Grant(*idle, want->caller, want->shape, req.job_id);
    node_.outbox.Send(want->caller, MessageType::kLeaseOffered, 0,
                      protocol::LeaseOffer{std::move(req.resources), idle->direct_endpoint, gate});
  }
}

void LocalLeases::Return(Client& w) {
  if (w.leased_to.empty()) {
    RAY_LOG_WARN("worker {} returned a lease it does not hold", ToHex(w.peer));
    return;
  }
  node_.available.Add(w.held);
  policy_.Ended(w.peer, w.held);  // (a blocked worker's lent CPU is out of both already)
  w.held = w.lease_shape = ResourceSet();
  w.leased_to.clear();
  w.leased_from.clear();
  w.blocked = false;
  w.blocking.clear();
  node_.clients.MakeIdle(w);  // (first in line: a warm worker first)
  node_.worker_freed();
}

void LocalLeases::WorkerGone(const Client& w, const std::string& cause) {
  if (w.leased_to.empty()) return;
  policy_.Ended(w.peer, w.held);
  if (w.leased_from.empty()) {
    node_.outbox.Send(w.leased_to, MessageType::kLeaseGone, 0,
                      protocol::LeaseGone{w.direct_endpoint, cause});
  }
}

void LocalLeases::CallerGone(const std::string& caller) {
  policy_.Forget(caller);
  for (auto& [peer, w] : node_.clients.all()) {
    if (w.leased_to == caller) node_.outbox.Send(peer, MessageType::kRevokeLease);
  }
}

void LocalLeases::Reclaim() {
  for (const std::string& peer : policy_.TakeToYield(node_.ready, node_.available)) {
    node_.outbox.Send(peer, MessageType::kYieldLease);
  }
}

}  // namespace ray::raylet
