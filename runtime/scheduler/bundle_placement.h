#pragma once
// Where the bundles of a placement group go: Ray 2.x's four strategies as a pure
// function of the bundles and the nodes' resources. The GCS calls it; a unit test
// drives it with method calls.
//
//   PACK           as few nodes as possible: one node if one has room for all, else
//                  each bundle on a node already used where it fits, else a new node.
//   SPREAD         as many distinct nodes as possible: a bundle goes to a node no bundle
//                  of the group uses if one fits it, else to the node with the fewest.
//   STRICT_PACK    every bundle on one node, or nowhere.
//   STRICT_SPREAD  every bundle on a different node, or nowhere.
//
// Placement is all or nothing: either every bundle gets a node or nothing is placed.
// Bundles already placed (a group rescheduled after a node died) stay where they are
// and count for the strategy. Nodes are tried in the order given (the GCS passes them
// by id), so a placement is deterministic. Not thread-safe (no state).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/scheduler/resources.h"

namespace ray::scheduler {

enum class PlacementStrategy { kPack, kSpread, kStrictPack, kStrictSpread };

// "PACK", "SPREAD", "STRICT_PACK", "STRICT_SPREAD" (Ray's names); nullopt otherwise.
std::optional<PlacementStrategy> ParsePlacementStrategy(std::string_view name);
const char* PlacementStrategyName(PlacementStrategy s);

// A live node as the GCS last heard of it; `available` has what the GCS placed there
// and the node has not yet reserved already taken off.
struct BundleNode {
  std::string id;
  ResourceSet total;
  ResourceSet available;
};

// The node of every bundle, or nullopt if the group does not fit the nodes now.
// `placed[i]`: the node bundle i is on already ("" to place it); empty or of the
// bundles' size.
std::optional<std::vector<std::string>> PlaceBundles(const std::vector<ResourceSet>& bundles,
                                                     PlacementStrategy strategy,
                                                     const std::vector<std::string>& placed,
                                                     const std::vector<BundleNode>& nodes);

// Why no cluster of these nodes (by their totals, all free) could ever hold the group,
// or Ok: a bundle larger than every node, a STRICT_PACK group larger than every node,
// a STRICT_SPREAD group with more bundles than nodes that fit them. The message names
// the bundle and the largest node.
Status CheckBundlesFit(const std::vector<ResourceSet>& bundles, PlacementStrategy strategy,
                       const std::vector<BundleNode>& nodes);

}  // namespace ray::scheduler
