#include "runtime/scheduler/placement.h"

#include <iterator>
#include <utility>

namespace ray::scheduler {

bool Placement::UpdateNode(const std::string& id, bool alive, bool reachable, ResourceSet total,
                           ResourceSet available) {
  Node& n = nodes_[id];
  bool was_alive = n.alive;
  n = Node{alive, reachable, std::move(total), std::move(available)};
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

void Placement::Charge(const std::string& node, const ResourceSet& need) {
  auto it = nodes_.find(node);
  if (it != nodes_.end()) it->second.available.Subtract(need);
}

void Placement::Refund(const std::string& node, const ResourceSet& need) {
  auto it = nodes_.find(node);
  if (it != nodes_.end()) it->second.available.AddUpTo(need, it->second.total);
}

ResourceSet Placement::ClusterTotal() const {
  ResourceSet sum = total_;
  for (const auto& [id, n] : nodes_) {
    if (n.alive) sum.Add(n.total);
  }
  return sum;
}

std::optional<std::string> Placement::RemoteWithRoom(const ResourceSet& need) const {
  for (const auto& [id, n] : nodes_) {
    if (n.alive && n.reachable && n.available.Contains(need)) return id;
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
