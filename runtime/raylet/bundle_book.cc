#include "runtime/raylet/bundle_book.h"

#include "runtime/scheduler/bundle_resources.h"

namespace ray::raylet {

bool BundleBook::LastOfGroup(const Key& key) const {
  for (const auto& [other, resources] : held_) {
    if (other.first == key.first && other != key) return false;
  }
  return true;
}

bool BundleBook::Reserve(const Key& key, const ResourceSet& resources, ResourceSet& total,
                         ResourceSet& available) {
  if (!available.Contains(resources)) {
    Refused(key);
    return false;
  }
  available.Subtract(resources);
  ResourceSet renamed = scheduler::BundleReservation(resources, key.first, key.second);
  total.Add(renamed);
  available.Add(renamed);
  held_[key] = resources;
  return true;
}

std::optional<scheduler::ResourceSet> BundleBook::Release(const Key& key, ResourceSet& total,
                                                          ResourceSet& available) {
  auto it = held_.find(key);
  if (it == held_.end()) return std::nullopt;
  ResourceSet original = std::move(it->second);
  held_.erase(it);
  ResourceSet renamed = scheduler::BundleReservation(original, key.first, key.second);
  total.Subtract(renamed);
  total.DropZerosOf(renamed);
  available.Subtract(renamed);
  available.Add(original);
  available.DropZerosOf(renamed);
  return original;
}

std::vector<BundleBook::Key> BundleBook::Held() const {
  std::vector<Key> keys;
  for (const auto& [key, resources] : held_) keys.push_back(key);
  return keys;
}

std::vector<BundleBook::Key> BundleBook::NotIn(const std::map<Key, ResourceSet>& wanted) const {
  std::vector<Key> keys;
  for (const auto& [key, resources] : held_) {
    if (!wanted.count(key)) keys.push_back(key);
  }
  return keys;
}

}  // namespace ray::raylet
