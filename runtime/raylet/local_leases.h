#pragma once
// Workers of this node leased to callers (drivers and workers here, or, through
// direct_routes.h, on other nodes), which then send them their tasks directly (see
// TaskSubmitter): a lease is granted when LeasePolicy allows it and a worker is idle;
// a caller whose calls wait behind its busy leased workers is offered one once
// resources for it free up, whoever frees them; a leased worker is asked to yield its
// lease when queued tasks wait for what it holds; a caller that is gone has its
// leases revoked.
//
// The raylet loop owns one (not thread-safe). It works on the raylet's clients, free
// resources and ready queue, and queues its messages in the raylet's outbox.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "runtime/base/clock.h"
#include "runtime/ids/ids.h"
#include "runtime/raylet/client_table.h"
#include "runtime/raylet/outbox.h"
#include "runtime/scheduler/lease_policy.h"
#include "runtime/scheduler/local_task_queue.h"
#include "runtime/scheduler/resources.h"
#include "runtime/serialization/protocol.h"

namespace ray::raylet {

class LocalLeases {
 public:
  // How long a worker leased to a caller on another node waits for the first call
  // (the answer crosses both raylets, and the caller may have a connection to make).
  static constexpr int32_t kRemoteFirstCallMs = 200;

  struct Node {
    ClientTable& clients;
    ResourceSet& available;  // the node's free resources: a lease holds its shape
    const scheduler::LocalTaskQueue& ready;
    Outbox& outbox;
    const Clock& clock;
    std::function<void(size_t n)> start_workers;  // no worker was idle for a lease
    std::function<void()> worker_freed;           // a worker is idle again, its resources free
  };

  explicit LocalLeases(Node node) : node_(std::move(node)) {}

  // Whether `req` asks for resources a task may (warns, naming the caller and `what`
  // was refused, if not).
  static bool Valid(const std::string& caller, const protocol::LeaseRequest& req,
                    const char* what = "a lease");
  // A lease of an idle worker for `caller`'s tasks of req's shape (`req` is Valid), or
  // "not now" / "busy" (LeasePolicy). `caller_node`: the caller's node if another than
  // this; `granted`: set to the worker leased, if one is.
  protocol::LeaseReply Lease(const std::string& caller, const protocol::LeaseRequest& req,
                             const std::string& caller_node = "", Client** granted = nullptr);
  // `caller`'s calls of `shape` (which this node fits) wait behind its busy leased
  // workers (kLeaseWanted, `req`): it is offered a lease (Offer) once one may be granted.
  void Want(const std::string& caller, const protocol::LeaseRequest& req, const ResourceSet& shape);
  // Offers leases to the callers that want them, while workers are idle and the
  // policy allows.
  void Offer();
  // Worker `w` returned its lease: it is idle, its resources free.
  void Return(Client& w);
  // Worker `w` is gone (`cause`): a lease it held ended with it, and a caller here is
  // told (kLeaseGone; one on another node hears through DirectRoutes::WorkerGone).
  void WorkerGone(const Client& w, const std::string& cause);
  // `caller` is gone: its wants go, its leased workers are told to end their leases.
  void CallerGone(const std::string& caller);
  // Asks leased workers to return their lease as soon as they run out of their
  // callers' tasks when queued tasks wait for what they hold (see LeasePolicy).
  void Reclaim();
  // A leased worker blocked in a Get lends `cpu` back to the node, and takes it again.
  void Lent(const ResourceSet& cpu) { policy_.Lent(cpu); }
  void Reacquired(const ResourceSet& cpu) { policy_.Reacquired(cpu); }

 private:
  // Leases `w` (idle, with a direct endpoint) to `caller` for tasks of `shape`.
  protocol::LeaseGate Grant(Client& w, const std::string& caller, const ResourceSet& shape,
                            const JobId& job_id, const std::string& caller_node = "");
  Node node_;
  scheduler::LeasePolicy policy_;
};

}  // namespace ray::raylet
