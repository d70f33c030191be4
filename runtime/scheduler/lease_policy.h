#pragma once
// Leases: a driver or worker (the caller) asks the raylet for an idle worker to push
// its tasks of one resource shape to directly, and keeps it until it runs out of them.
// This is the policy: whether a lease may be granted now, what leased workers hold in
// all, and when they are asked to yield their lease early (when tasks queued at the
// raylet wait for resources that leased workers hold, and would fit were the leases
// over), and which callers are offered a lease unasked (a caller whose calls wait
// behind its busy leased workers wants one as soon as resources for it free up,
// whoever frees them). The raylet finds the worker and sends the messages.
//
// Pure: no sockets, no clock; the raylet owns one (not thread-safe).

#include <deque>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "runtime/scheduler/local_task_queue.h"
#include "runtime/scheduler/resources.h"

namespace ray::scheduler {

class LeasePolicy {
 public:
  enum class Answer {
    kNotNow,  // not now, ask again later (or send the tasks through the raylet)
    kBusy,    // the node's resources for the shape are all taken
    kMayGrant,  // if an idle worker is ready
  };
  // Whether a lease of `shape` may be granted. Tasks queued at the raylet for the
  // shape go first; no lease while queued tasks wait for leased resources; GPU ids
  // are handed out per task, so GPU shapes are never leased.
  Answer Decide(const ResourceSet& shape, const LocalTaskQueue& queue,
                const ResourceSet& available) const;

  // A lease of `shape` was granted to worker `peer`.
  void Granted(const std::string& peer, const ResourceSet& shape);
  // Worker `peer`'s lease ended (returned, or the worker is gone) while it held
  // `held` of it (less than the shape while it lends its CPU back).
  void Ended(const std::string& peer, const ResourceSet& held);
  // A leased worker blocked in a Get lends `cpu` back to the node, and takes it again.
  void Lent(const ResourceSet& cpu) { leased_.Subtract(cpu); }
  void Reacquired(const ResourceSet& cpu) { leased_.Add(cpu); }
  // What leased workers hold, in all.
  const ResourceSet& leased() const { return leased_; }

  // Whether queued tasks wait for resources that leased workers hold: a shape that
  // `available` does not hold, and would with the leased resources back.
  bool QueueWaitsForLeases(const LocalTaskQueue& queue, const ResourceSet& available) const;
  // The leased workers to ask now to yield their lease as soon as they run out of
  // their callers' tasks: when the queue waits for leases, every one not asked yet
  // (each is asked once per lease).
  std::vector<std::string> TakeToYield(const LocalTaskQueue& queue, const ResourceSet& available);

  // Offers. `caller` has calls of `shape` queued behind its busy leased workers: it
  // wants a lease of the shape as soon as Decide would grant one (once: a second want
  // of the same caller and shape before the offer is ignored). `request` is the
  // caller's (given back with the offer).
  struct Want {
    std::string caller;
    ResourceSet shape;
    std::string request;
  };
  void Wanted(Want want);
  // The oldest want Decide would grant now, or nullopt; Offered() removes it once the
  // raylet found it a worker.
  std::optional<Want> NextOffer(const LocalTaskQueue& queue, const ResourceSet& available) const;
  void Offered(const std::string& caller, const ResourceSet& shape);
  // The caller is gone: its wants go.
  void Forget(const std::string& caller);
  bool HasWants() const { return !wants_.empty(); }

 private:
  ResourceSet leased_;  // (not the CPU a blocked leased worker lent back)
  std::unordered_set<std::string> unreclaimed_;  // leased workers not asked to yield yet
  std::deque<Want> wants_;  // oldest first
};

}  // namespace ray::scheduler
