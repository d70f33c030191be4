#include "runtime/raylet/remote_asks.h"

#include <algorithm>

namespace ray::raylet {

uint64_t RemoteAsks::Open(Ask ask) {
  uint64_t number = next_++;
  asks_.emplace(number, std::move(ask));
  return number;
}

std::optional<RemoteAsks::Ask> RemoteAsks::Answered(uint64_t number, bool lease) {
  auto it = asks_.find(number);
  if (it == asks_.end() || it->second.lease != lease) return std::nullopt;
  Ask ask = std::move(it->second);
  asks_.erase(it);
  return ask;
}

template <typename Pred>
std::vector<RemoteAsks::Ask> RemoteAsks::TakeIf(Pred&& pred) {
  std::vector<uint64_t> numbers;
  for (const auto& [number, ask] : asks_) {
    if (pred(ask)) numbers.push_back(number);
  }
  std::sort(numbers.begin(), numbers.end());  // (in the order they were made)
  std::vector<Ask> taken;
  for (uint64_t number : numbers) {
    auto it = asks_.find(number);
    taken.push_back(std::move(it->second));
    asks_.erase(it);
  }
  return taken;
}

std::vector<RemoteAsks::Ask> RemoteAsks::TakeExpired(int64_t now) {
  auto expired = TakeIf([&](const Ask& ask) { return now - ask.asked_ms >= kTimeoutMs; });
  for (const Ask& ask : expired) {
    if (ask.lease) lease_unanswered_ms_[ask.node] = now;
  }
  return expired;
}

std::vector<RemoteAsks::Ask> RemoteAsks::TakeAsksTo(const std::string& node) {
  return TakeIf([&](const Ask& ask) { return ask.node == node; });
}

bool RemoteAsks::LeasesPaused(const std::string& node, int64_t now) const {
  auto it = lease_unanswered_ms_.find(node);
  return it != lease_unanswered_ms_.end() && now - it->second < kLeasePauseMs;
}

const std::string* RemoteAsks::NodeOfEndpoint(const std::string& endpoint) const {
  auto it = endpoints_.find(endpoint);
  return it == endpoints_.end() ? nullptr : &it->second;
}

void RemoteAsks::Leased(const std::string& node, const std::string& caller,
                        const std::string& endpoint) {
  leases_[node].insert({caller, endpoint});
  NoteEndpoint(endpoint, node);
}

bool RemoteAsks::LeaseGone(const std::string& caller, const std::string& endpoint) {
  bool known = false;
  for (auto& [node, leases] : leases_) known |= leases.erase({caller, endpoint}) > 0;
  return known;
}

void RemoteAsks::CallerGone(const std::string& caller) {
  for (auto& [node, leases] : leases_) {
    std::erase_if(leases, [&](const auto& lease) { return lease.first == caller; });
  }
}

std::set<std::pair<std::string, std::string>> RemoteAsks::TakeLeasesOn(const std::string& node) {
  auto it = leases_.find(node);
  if (it == leases_.end()) return {};
  auto taken = std::move(it->second);
  leases_.erase(it);
  return taken;
}

}  // namespace ray::raylet
