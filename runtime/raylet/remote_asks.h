#pragma once
// What this node asked other nodes for its callers, and what they granted:
//   - asks waiting for an answer: a route ask (where a caller here may call an actor
//     hosted there directly) or a lease ask (a worker there for a caller's tasks);
//   - the endpoints of workers there that callers here were given (what a caller's
//     RanElsewhere names), and the leases among them (callers hear when that node dies).
// An ask unanswered for kTimeoutMs expires: the raylet answers its caller as if
// refused (a route: "through the raylets"; a lease: "not now", or "busy").
// A node that left a lease ask unanswered is not asked for leases for kLeasePauseMs
// (each ask blocks its caller until answered or expired).
//
// Bookkeeping only: no sockets; the raylet passes the time in (not thread-safe).

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "runtime/ids/ids.h"

namespace ray::raylet {

class RemoteAsks {
 public:
  struct Ask {
    std::string caller;    // the local client that asked
    uint64_t request = 0;  // its request, answered once this is
    ActorId actor;         // a route ask: the actor; a lease ask: nil
    std::string node;      // the node asked
    int64_t asked_ms = 0;
    bool lease = false;
    // A lease this node could grant but was busy for (spillback): if not granted
    // there, the caller hears "busy".
    bool spillback = false;
  };
  static constexpr int64_t kTimeoutMs = 1000;
  static constexpr int64_t kLeasePauseMs = 5000;

  // Records `ask`; returns its number, which the node asked answers with.
  uint64_t Open(Ask ask);
  // The answer to ask `number`, of the kind `lease`: the ask, taken out; nullopt if it
  // expired, was never made, or is of the other kind (then it stays).
  std::optional<Ask> Answered(uint64_t number, bool lease);
  // The asks unanswered for kTimeoutMs or more at `now`, taken out; the nodes that left
  // a lease ask unanswered are paused from `now`.
  std::vector<Ask> TakeExpired(int64_t now);
  // The asks waiting for `node` (it died), taken out.
  std::vector<Ask> TakeAsksTo(const std::string& node);
  bool empty() const { return asks_.empty(); }
  // Whether `node` left a lease ask unanswered in the kLeasePauseMs before `now`.
  bool LeasesPaused(const std::string& node, int64_t now) const;

  // Callers here were given `endpoint`, a worker on `node` (a route or a lease).
  void NoteEndpoint(const std::string& endpoint, const std::string& node) {
    endpoints_[endpoint] = node;
  }
  // The node of an endpoint given out here; null if none was.
  const std::string* NodeOfEndpoint(const std::string& endpoint) const;
  // The worker at `endpoint` on `node` was leased to `caller` (and reached by it).
  void Leased(const std::string& node, const std::string& caller, const std::string& endpoint);
  // That lease is over (its worker died): whether it was one granted here.
  bool LeaseGone(const std::string& caller, const std::string& endpoint);
  // `caller` is gone: its leases are forgotten.
  void CallerGone(const std::string& caller);
  // `node` died: the leases there, as (caller, endpoint), taken out.
  std::set<std::pair<std::string, std::string>> TakeLeasesOn(const std::string& node);

 private:
  // The asks `pred` holds for, taken out in the order they were made.
  template <typename Pred>
  std::vector<Ask> TakeIf(Pred&& pred);

  std::unordered_map<uint64_t, Ask> asks_;
  uint64_t next_ = 1;
  std::unordered_map<std::string, int64_t> lease_unanswered_ms_;  // by node
  std::unordered_map<std::string, std::string> endpoints_;        // endpoint -> node
  // node -> (caller, endpoint), as granted: some may have been returned since.
  std::map<std::string, std::set<std::pair<std::string, std::string>>> leases_;
};

}  // namespace ray::raylet
