#include "runtime/raylet/bundle_book.h"

namespace ray::raylet {

bool BundleBook::HoldsGroup(const std::string& pg_id) const {
  for (const auto& [key, resources] : held_) {
    if (key.first == pg_id) return true;
  }
  return false;
}

std::optional<scheduler::ResourceSet> BundleBook::Release(const Key& key) {
  auto it = held_.find(key);
  if (it == held_.end()) return std::nullopt;
  ResourceSet resources = std::move(it->second);
  held_.erase(it);
  return resources;
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
