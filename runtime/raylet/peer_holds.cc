#include "runtime/raylet/peer_holds.h"

namespace ray::raylet {

PeerHolds::Peer* PeerHolds::PeerFor(const std::string& node) {
  if (node == self_ || gone_.count(node)) return nullptr;
  return &peers_[node];
}

void PeerHolds::Borrow(const std::string& home, const ObjectId& id) {
  if (Peer* p = PeerFor(home)) p->next.borrowed.push_back(id);
}

void PeerHolds::Unborrow(const std::string& home, const ObjectId& id, int64_t now_ms) {
  After([this, home, id] {
    if (Peer* p = PeerFor(home)) p->next.unborrowed.push_back(id);
  }, now_ms);
}

void PeerHolds::FreeCopy(const std::string& node, const ObjectId& id) {
  if (Peer* p = PeerFor(node)) p->next.free_copies.push_back(id);
}

std::vector<std::pair<std::string, uint64_t>> PeerHolds::Unacknowledged() const {
  std::vector<std::pair<std::string, uint64_t>> needs;
  for (const auto& [node, peer] : peers_) {
    uint64_t last = peer.sent + (peer.next.borrowed.empty() ? 0 : 1);
    if (last > peer.acked) needs.emplace_back(node, last);
  }
  return needs;
}

void PeerHolds::Acked(const std::string& home, uint64_t seq) {
  auto it = peers_.find(home);
  if (it == peers_.end() || seq <= it->second.acked) return;
  it->second.acked = std::min(seq, it->second.sent);
  RunSatisfied();
}

void PeerHolds::Acknowledge(const std::string& from, uint64_t seq) {
  if (Peer* p = PeerFor(from)) p->ack_due = std::max(p->ack_due, seq);
}

std::vector<std::string> PeerHolds::Expire(int64_t now_ms) {
  std::set<std::string> silent;
  while (!deferred_.empty() && deferred_.front().deadline_ms <= now_ms) {
    for (const auto& [node, seq] : deferred_.front().needs) {
      auto it = peers_.find(node);
      if (it == peers_.end() || it->second.acked >= seq) continue;
      silent.insert(node);
      it->second.acked = std::min(seq, it->second.sent);  // given up on
    }
    auto then = std::move(deferred_.front().then);
    deferred_.pop_front();
    then();
  }
  RunSatisfied();
  return {silent.begin(), silent.end()};
}

void PeerHolds::Forget(const std::string& node) {
  gone_.insert(node);
  peers_.erase(node);
  RunSatisfied();
}

bool PeerHolds::Satisfied(const Deferred& d) const {
  for (const auto& [node, seq] : d.needs) {
    auto it = peers_.find(node);
    if (it != peers_.end() && it->second.acked < seq) return false;
  }
  return true;
}

void PeerHolds::RunSatisfied() {
  while (!deferred_.empty() && Satisfied(deferred_.front())) {
    auto then = std::move(deferred_.front().then);
    deferred_.pop_front();
    then();  // (may defer more: appended behind)
  }
}

}  // namespace ray::raylet
