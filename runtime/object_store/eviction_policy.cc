#include "runtime/object_store/eviction_policy.h"

namespace ray::object_store {

void EvictionPolicy::Add(const ObjectId& id, size_t size, bool referenced) {
  Remove(id);
  lru_.push_back(Item{id, size, referenced});
  index_[id] = std::prev(lru_.end());
}

void EvictionPolicy::Remove(const ObjectId& id) {
  auto it = index_.find(id);
  if (it == index_.end()) return;
  lru_.erase(it->second);
  index_.erase(it);
}

void EvictionPolicy::Touch(const ObjectId& id) {
  auto it = index_.find(id);
  if (it == index_.end()) return;
  lru_.splice(lru_.end(), lru_, it->second);
}

std::optional<EvictionPolicy::Plan> EvictionPolicy::MakeRoom(size_t needed,
                                                             const IsPinned& pinned) const {
  Plan plan;
  // First pass: unreferenced objects only; second pass: referenced ones.
  for (bool referenced : {false, true}) {
    for (const Item& item : lru_) {
      if (plan.freed_bytes >= needed) return plan;
      if (item.referenced != referenced || pinned(item.id)) continue;
      (referenced ? plan.spill : plan.evict).push_back(item.id);
      plan.freed_bytes += item.size;
    }
  }
  if (plan.freed_bytes >= needed) return plan;
  return std::nullopt;
}

size_t EvictionPolicy::PinnedBytes(const IsPinned& pinned) const {
  size_t bytes = 0;
  for (const Item& item : lru_) {
    if (pinned(item.id)) bytes += item.size;
  }
  return bytes;
}

}  // namespace ray::object_store
