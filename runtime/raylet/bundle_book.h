#pragma once
// The placement-group bundles this node holds, as the GCS asked for them: each one's
// resources as its group asked (the node's total and free resources carry their
// renamed form, see scheduler/bundle_resources.h), the bundles it was asked to hold
// but could not (the GCS places them again), and the version of the GCS's groups it
// last heard. Reserving and releasing a bundle moves the node's resources (its total
// and free ones, which the raylet keeps) between their plain and renamed forms.
//
// Pure: no sockets, no clock; the raylet owns one (not thread-safe).

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
  // Whether releasing `key` (held) leaves no bundle of its group here.
  bool LastOfGroup(const Key& key) const;
  // Reserves bundle `key` (not held) of `resources` on a node with resources `total`,
  // `available` free: they leave `available`, and their renamed form joins both. If
  // `available` does not hold them, nothing changes and the bundle is refused (taken
  // meanwhile: the GCS places it again): false.
  bool Reserve(const Key& key, const ResourceSet& resources, ResourceSet& total,
               ResourceSet& available);
  // Releases bundle `key`: its renamed form leaves `total` and `available` (what the
  // workers in it held is back in `available` already), and its resources as its
  // group asked return to `available`. Returns those; nullopt if it was not held.
  std::optional<ResourceSet> Release(const Key& key, ResourceSet& total, ResourceSet& available);
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
