#include "runtime/scheduler/placement.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace ray::scheduler {

bool Placement::UpdateNode(const std::string& id, bool alive, bool reachable, ResourceSet total,
                           ResourceSet available, int64_t now_ms) {
  Node& n = nodes_[id];
  bool was_alive = n.alive;
  n.alive = alive;
  n.reachable = reachable;
  n.total = std::move(total);
  n.available = std::move(available);
  while (!n.charges.empty() && now_ms - n.charges.front().when_ms >= kChargeLagMs) {
    n.charges.pop_front();
  }
  for (const auto& c : n.charges) n.available.Subtract(c.need);
  return was_alive;
}

std::optional<std::string> Placement::NodeWithPrefix(const std::string& prefix) const {
  auto it = nodes_.lower_bound(prefix);
  if (it == nodes_.end() || it->first.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  auto next = std::next(it);
  if (next != nodes_.end() && next->first.compare(0, prefix.size(), prefix) == 0) return std::nullopt;
  return it->first;
}

bool Placement::MultiNode() const {
  for (const auto& [id, n] : nodes_) {
    if (n.alive) return true;
  }
  return false;
}

void Placement::Charge(const std::string& node, const ResourceSet& need, int64_t now_ms,
                       const std::string& key) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return;
  it->second.available.Subtract(need);
  it->second.charges.push_back({now_ms, key, need});
}

void Placement::Refund(const std::string& node, const std::string& key) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return;
  Node& n = it->second;
  auto charge = std::find_if(n.charges.begin(), n.charges.end(),
                             [&](const Node::Charged& c) { return c.key == key; });
  if (charge == n.charges.end()) return;  // reports count it: the next one says
  n.available.AddUpTo(charge->need, n.total);
  n.charges.erase(charge);
}

ResourceSet Placement::ClusterTotal() const {
  ResourceSet sum = total_;
  for (const auto& [id, n] : nodes_) {
    if (n.alive) sum.Add(n.total);
  }
  return sum;
}

std::optional<std::string> Placement::RemoteWithRoom(
    const ResourceSet& need, const std::function<bool(const std::string& node)>& skip) const {
  for (const auto& [id, n] : nodes_) {
    if (n.alive && n.reachable && n.available.Contains(need) && !(skip && skip(id))) return id;
  }
  return std::nullopt;
}

std::optional<std::string> Placement::ChooseNode(const ResourceSet& need,
                                                 const ResourceSet& available,
                                                 bool shape_waiting) const {
  if (available.Contains(need) && !shape_waiting) return std::string();
  if (auto n = RemoteWithRoom(need)) return n;
  if (total_.Contains(need)) return std::string();
  for (const auto& [id, n] : nodes_) {
    if (n.alive && n.reachable && n.total.Contains(need)) return id;
  }
  return std::nullopt;
}

}  // namespace ray::scheduler
