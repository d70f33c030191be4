#pragma once
// Placement groups (Ray 2.x): reserve bundles of resources across the cluster at
// once, then run tasks and actors inside them.
//
//   std::vector<std::unordered_map<std::string, double>> bundles{{{"CPU", 1}}, {{"CPU", 1}}};
//   ray::PlacementGroup pg = ray::CreatePlacementGroup(
//       ray::PlacementGroupCreationOptions{"trial_1", bundles, ray::PlacementStrategy::SPREAD});
//   if (!pg.Wait(10)) { ... }                        // every bundle reserved within 10 s?
//   auto a = ray::Actor(Worker::Create).SetPlacementGroup(pg, 0).Remote();
//   auto r = ray::Task(Work).SetPlacementGroup(pg, -1).Remote(1);   // -1: any bundle
//   ray::RemovePlacementGroup(pg.GetID());
//
// Strategies: PACK (as few nodes as possible), SPREAD (as many distinct nodes as
// possible), STRICT_PACK (one node), STRICT_SPREAD (a distinct node per bundle).
// A group that does not fit now waits (PENDING); one that no cluster of the live
// nodes could ever hold is refused at creation (RayException), unless an autoscaler
// runs. A task or actor in a bundle uses the bundle's resources (its resource
// request, one CPU by default for a task, must fit the bundle) and runs on the
// bundle's node. Removing a group kills its actors and fails its tasks; a group is
// removed when the job that created it ends. A group whose node dies is placed again
// (RESCHEDULING). Every call throws RayException when the runtime refuses it.

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "ray/context.h"
#include "ray/errors.h"
#include "ray/wire.h"

namespace ray {

enum class PlacementStrategy { PACK = 0, SPREAD = 1, STRICT_PACK = 2, STRICT_SPREAD = 3 };
enum class PlacementGroupState { PENDING = 0, CREATED = 1, REMOVED = 2, RESCHEDULING = 3, UNRECOGNIZED = 4 };

struct PlacementGroupCreationOptions {
  std::string name;  // "": unnamed; else unique among live groups
  std::vector<std::unordered_map<std::string, double>> bundles;
  PlacementStrategy strategy = PlacementStrategy::PACK;
};

namespace internal {

inline const char* StrategyName(PlacementStrategy s) {
  switch (s) {
    case PlacementStrategy::PACK: return "PACK";
    case PlacementStrategy::SPREAD: return "SPREAD";
    case PlacementStrategy::STRICT_PACK: return "STRICT_PACK";
    case PlacementStrategy::STRICT_SPREAD: return "STRICT_SPREAD";
  }
  return "?";
}

}  // namespace internal

// A handle to a group: its id and what it was created with. GetState() and Wait()
// ask the cluster; the rest is as of when the handle was made.
class PlacementGroup {
 public:
  PlacementGroup() = default;
  explicit PlacementGroup(PlacementGroupInfo info) : info_(std::move(info)) {}

  const std::string& GetID() const { return info_.id; }
  const std::string& GetName() const { return info_.name; }
  std::vector<std::unordered_map<std::string, double>> GetBundles() const {
    std::vector<std::unordered_map<std::string, double>> out;
    for (const auto& b : info_.bundles) out.emplace_back(b.begin(), b.end());
    return out;
  }
  size_t BundleCount() const { return info_.bundles.size(); }
  PlacementStrategy GetStrategy() const {
    for (auto s : {PlacementStrategy::PACK, PlacementStrategy::SPREAD,
                   PlacementStrategy::STRICT_PACK, PlacementStrategy::STRICT_SPREAD}) {
      if (info_.strategy == internal::StrategyName(s)) return s;
    }
    return PlacementStrategy::PACK;
  }
  // The group as the cluster has it now (state, the node of each bundle).
  PlacementGroupInfo Info() const {
    return internal::Call<PlacementGroupInfo>("get_placement_group",
                                              internal::Pack(std::make_tuple(info_.id, std::string())));
  }
  PlacementGroupState GetState() const {
    std::string s = Info().state;
    if (s == "PENDING") return PlacementGroupState::PENDING;
    if (s == "CREATED") return PlacementGroupState::CREATED;
    if (s == "REMOVED") return PlacementGroupState::REMOVED;
    if (s == "RESCHEDULING") return PlacementGroupState::RESCHEDULING;
    return PlacementGroupState::UNRECOGNIZED;
  }
  // Waits until every bundle is reserved (true), or `timeout_seconds` pass or the
  // group is removed (false). Polls the cluster every 20-100 ms.
  bool Wait(int timeout_seconds) const {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
    auto pause = std::chrono::milliseconds(20);
    while (true) {
      PlacementGroupState s = GetState();
      if (s == PlacementGroupState::CREATED) return true;
      if (s == PlacementGroupState::REMOVED) return false;
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(pause);
      if (pause < std::chrono::milliseconds(100)) pause *= 2;
    }
  }
  bool Ready() const { return GetState() == PlacementGroupState::CREATED; }

 private:
  PlacementGroupInfo info_;
};

inline PlacementGroup CreatePlacementGroup(const PlacementGroupCreationOptions& options) {
  std::vector<std::map<std::string, double>> bundles;
  for (const auto& b : options.bundles) bundles.emplace_back(b.begin(), b.end());
  return PlacementGroup(internal::Call<PlacementGroupInfo>(
      "create_placement_group",
      internal::Pack(std::make_tuple(options.name,
                                     std::string(internal::StrategyName(options.strategy)),
                                     bundles))));
}

inline PlacementGroup CreatePlacementGroup(
    const std::vector<std::unordered_map<std::string, double>>& bundles,
    PlacementStrategy strategy = PlacementStrategy::PACK, const std::string& name = "") {
  return CreatePlacementGroup(PlacementGroupCreationOptions{name, bundles, strategy});
}

// Removes the group (a removed or unknown id throws only if unknown).
inline void RemovePlacementGroup(const std::string& placement_group_id) {
  internal::Call<bool>("remove_placement_group", internal::Pack(placement_group_id));
}

// The live group named `name`; an empty handle (GetID() empty) if there is none, as
// Ray's.
inline PlacementGroup GetPlacementGroup(const std::string& name) {
  return PlacementGroup(internal::Call<PlacementGroupInfo>(
      "get_placement_group", internal::Pack(std::make_tuple(std::string(), name))));
}

inline PlacementGroup GetPlacementGroupById(const std::string& id) {
  return PlacementGroup(internal::Call<PlacementGroupInfo>(
      "get_placement_group", internal::Pack(std::make_tuple(id, std::string()))));
}

// Every group of the cluster, removed ones included, in creation order.
inline std::vector<PlacementGroup> GetAllPlacementGroups() {
  std::vector<PlacementGroup> out;
  for (auto& info : internal::Call<std::vector<PlacementGroupInfo>>("placement_groups")) {
    out.emplace_back(std::move(info));
  }
  return out;
}

}  // namespace ray
