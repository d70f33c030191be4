#pragma once
// Tasks and actors that wait for a bundle of their placement group that no node holds
// (yet, or any more): whether they can still run in it. One whose group is gone, or
// whose bundle index is out of range, or whose request no bundle it may use can hold,
// never will: it fails with Ray's error type and the reason.
//
// Pure: the raylet asks the GCS for the groups and fails what this says.

#include <optional>
#include <string>

#include "runtime/gcs/gcs_records.h"
#include "runtime/serialization/protocol.h"

namespace ray::raylet {

struct Unplaceable {
  std::string type;  // Ray's error type, e.g. ActorPlacementGroupRemoved
  std::string why;
};

// Why `t` can never run in its group `pg` (the GCS's record of t.placement_group_id;
// null: the GCS knows no such group), or nullopt while it may.
std::optional<Unplaceable> WhyNeverInGroup(const protocol::TaskSpec& t,
                                           const gcs::PlacementGroupRecord* pg);

}  // namespace ray::raylet
