#pragma once
// The placement-group bundles this node holds, as the GCS asked for them: each one's
// resources as its group asked (the node's total and free resources carry their
// renamed form, see scheduler/bundle_resources.h), the bundles it was asked to hold
// but could not (the GCS places them again), and the version of the GCS's groups it
// last heard. The raylet reserves and releases the resources; this keeps the book.
//
// Pure bookkeeping: no sockets, no clock; the raylet owns one (not thread-safe).

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "runtime/scheduler/resources.h"

namespace ray::raylet {

class BundleBook {
 public:
  using Key = std::pair<std::string, int32_t>;  // (group id hex, bundle index)
  using ResourceSet = scheduler::ResourceSet;

  bool Holds(const Key& key) const { return held_.count(key) > 0; }
  // Whether a bundle of group `pg_id` is held.
  bool HoldsGroup(const std::string& pg_id) const;
  void Reserved(const Key& key, ResourceSet resources) { held_[key] = std::move(resources); }
  // The bundle's resources as its group asked, and it is held no more; nullopt if it
  // was not held.
  std::optional<ResourceSet> Release(const Key& key);
  // The bundles held, in key order; those held that `wanted` does not name.
  std::vector<Key> Held() const;
  std::vector<Key> NotIn(const std::map<Key, ResourceSet>& wanted) const;

  // Bundles asked for that could not be reserved (told to the GCS with the next sync).
  void Refused(const Key& key) { refused_.insert(key); }
  std::vector<Key> refused() const { return {refused_.begin(), refused_.end()}; }
  void ClearRefused() { refused_.clear(); }

  // Whether the GCS's groups `version` differs from the one last heard (it becomes
  // the one last heard).
  bool NewVersion(uint64_t version) { return std::exchange(version_, version) != version; }

 private:
  std::map<Key, ResourceSet> held_;
  std::set<Key> refused_;
  uint64_t version_ = 0;
};

}  // namespace ray::raylet
