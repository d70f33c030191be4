#pragma once
// Holds across nodes: what this node tells the other nodes of the objects they are the
// home of (the node whose raylet counts an object's holders: see HomeTag), batched into
// one protocol::PeerHolds per node and loop turn.
//
// The protocol (object_holds.h has the one-node part):
//   - A node whose processes, tasks or objects hold an object homed elsewhere counts
//     those holds itself, and is one holder at the home while it has any: it says
//     Borrow when its first hold comes and Unborrow when its last goes.
//   - Order makes it safe, as on one node: a node's borrow must be counted at the home
//     before anything that held the ref for it lets go. So whatever this node says
//     that may let a holder go (an Unborrow, a task's end to the node that sent it,
//     the reply a worker waits for before answering a direct call) waits (After) until
//     every borrow said before it is acknowledged by its home.
//   - When the home frees an object it tells the nodes that may hold copies (the node
//     its task ran on, the nodes it served copies to) to drop them; each passes it on
//     to the nodes it served in turn (FreeCopy).
//   - A node that dies: its home drops its holds (the raylet); here its
//     acknowledgements are no longer waited for (Forget).
//   - Nothing waits for ever: what still waits kAckTimeoutMs after it was deferred
//     goes on (Expire names the homes that did not answer), and a message to a node
//     whose address is not known yet stays queued for the next Flush.
//
// Bookkeeping only (no sockets): the raylet sends what Flush hands it. Not thread-safe.

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "runtime/ids/ids.h"
#include "runtime/serialization/protocol.h"

namespace ray::raylet {

class PeerHolds {
 public:
  explicit PeerHolds(std::string self) : self_(std::move(self)) {}

  // This node began to hold `id`, whose home is `home`: said at the next Flush.
  void Borrow(const std::string& home, const ObjectId& id);
  // This node holds `id` no more: said once every borrow said before is acknowledged.
  void Unborrow(const std::string& home, const ObjectId& id, int64_t now_ms = 0);
  // `node` may hold a copy of `id`, which is freed: said at the next Flush.
  void FreeCopy(const std::string& node, const ObjectId& id);
  // Runs `then` once every borrow said (or to be said at the next Flush) until now is
  // acknowledged: at once if none waits (nothing is allocated then: replies of puts
  // and task ends come this way). Deferred ones run in the order given.
  template <typename Then>
  void After(Then&& then, int64_t now_ms = 0) {
    auto needs = Unacknowledged();
    if (needs.empty() && deferred_.empty()) return then();
    deferred_.push_back(Deferred{std::move(needs), std::function<void()>(std::forward<Then>(then)),
                                 now_ms + kAckTimeoutMs});
  }
  // `home` acknowledged the borrows of its message `seq` and of every one before.
  void Acked(const std::string& home, uint64_t seq);
  // This node (a home) counted `from`'s borrows up to its message `seq`: the
  // acknowledgement goes at the next Flush.
  void Acknowledge(const std::string& from, uint64_t seq);
  // Runs what waited kAckTimeoutMs or more, as if acknowledged (nothing more waits for
  // those homes' earlier borrows); returns those homes, to be named in a warning.
  static constexpr int64_t kAckTimeoutMs = 10000;
  std::vector<std::string> Expire(int64_t now_ms);
  // `node` died: nothing more is said to it, and its acknowledgements are not waited for.
  void Forget(const std::string& node);
  // Whether anything waits for an acknowledgement.
  bool Waiting() const { return !deferred_.empty(); }

  // Hands `send(node, message)` what is to be said to each node now (PeerHolds, then
  // PeerHoldsAck); `send` returns false if it cannot reach `node` yet (the message
  // stays queued).
  template <typename Send>
  void Flush(Send&& send);

 private:
  struct Peer {
    protocol::PeerHolds next;  // to send at the next Flush
    uint64_t sent = 0;         // the last message with borrows sent
    uint64_t acked = 0;
    uint64_t ack_due = 0;      // of its messages: to acknowledge at the next Flush
  };
  struct Deferred {
    std::vector<std::pair<std::string, uint64_t>> needs;  // (home, seq) to be acknowledged
    std::function<void()> then;
    int64_t deadline_ms = 0;
  };
  Peer* PeerFor(const std::string& node);
  // (home, seq) of every borrow said, or to be said, and not acknowledged yet: the
  // last message of each home to wait for.
  std::vector<std::pair<std::string, uint64_t>> Unacknowledged() const;
  bool Satisfied(const Deferred& d) const;
  void RunSatisfied();

  std::string self_;
  std::map<std::string, Peer> peers_;
  std::set<std::string> gone_;
  std::deque<Deferred> deferred_;
};

template <typename Send>
void PeerHolds::Flush(Send&& send) {
  for (auto& [node, peer] : peers_) {
    protocol::PeerHolds& m = peer.next;
    if (!m.borrowed.empty() || !m.unborrowed.empty() || !m.free_copies.empty()) {
      m.from_node = self_;
      m.seq = m.borrowed.empty() ? 0 : peer.sent + 1;
      if (send(node, m)) {
        if (m.seq != 0) peer.sent = m.seq;
        m = protocol::PeerHolds();
      }
    }
    if (peer.ack_due != 0 && send(node, protocol::PeerHoldsAck{self_, peer.ack_due})) {
      peer.ack_due = 0;
    }
  }
}

}  // namespace ray::raylet
