#include "runtime/raylet/group_tasks.h"

#include <fmt/format.h>

#include "runtime/scheduler/bundle_resources.h"
#include "runtime/scheduler/resources.h"

namespace ray::raylet {

using scheduler::ResourceSet;

std::optional<Unplaceable> WhyNeverInGroup(const protocol::TaskSpec& t,
                                           const gcs::PlacementGroupRecord* pg) {
  const std::string& id = t.placement_group_id;
  const bool actor = t.kind == ray::internal::kActorCreation;
  const std::string what = fmt::format("{} {}", actor ? "actor" : "task", t.function);
  if (!pg || pg->state == gcs::kPgRemoved) {
    return Unplaceable{actor ? "ActorPlacementGroupRemoved" : "TaskPlacementGroupRemoved",
                       !pg ? fmt::format("{} cannot run: no placement group {}", what, id)
                           : fmt::format("{} cannot run: its placement group {} was removed ({})",
                                         what, id, pg->detail)};
  }
  const char* unschedulable = actor ? "ActorUnschedulableError" : "TaskUnschedulableError";
  if (t.bundle_index >= static_cast<int32_t>(pg->bundles.size())) {
    return Unplaceable{
        unschedulable,
        fmt::format("{}: bundle index {} is out of range (placement group {} has {} bundles)", what,
                    t.bundle_index, id, pg->bundles.size())};
  }
  // What it asks of the bundle must fit the bundle (any bundle, for index -1).
  ResourceSet ask =
      ResourceSet::FromDoubles(scheduler::RequestInBundle(t.resources, id, t.bundle_index));
  for (size_t i = 0; i < pg->bundles.size(); ++i) {
    if (t.bundle_index >= 0 && static_cast<size_t>(t.bundle_index) != i) continue;
    if (ResourceSet::FromDoubles(pg->bundles[i]).Contains(ask)) return std::nullopt;
  }
  std::string bundle =
      t.bundle_index >= 0
          ? fmt::format("bundle {} ({})", t.bundle_index,
                        ResourceSet::FromDoubles(pg->bundles[t.bundle_index]).ToString())
          : std::string("any of its bundles");
  return Unplaceable{unschedulable,
                     fmt::format("{} requires {}, more than {} of placement group {} reserves",
                                 what, ask.ToString(), bundle, id)};
}

}  // namespace ray::raylet
