#pragma once
// How a placement group's bundles appear as resources, as in Ray 2.x. A node that
// reserves bundle i of group G takes the bundle's resources off its free pool and
// adds, for each resource R of the bundle,
//   R_group_<i>_<G>   the bundle's own amount       (tasks that name bundle i)
//   R_group_<G>       the same amount again          (tasks that name any bundle, -1)
// and the markers bundle_group_<i>_<G> and bundle_group_<G> (kBundleMarkerUnits each),
// of which every task in the group asks a sliver, so that a task asking for nothing
// else still runs where its bundle is. G is the group's id in hex. Pure functions.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "runtime/scheduler/resources.h"

namespace ray::scheduler {

constexpr double kBundleMarkerUnits = 1000;
constexpr double kBundleMarkerRequest = 0.001;

// Whether `name` is a resource a group's bundle made (contains "_group_"); users
// may not ask for such names themselves, nor put them in bundles.
bool IsBundleResourceName(std::string_view name);

// The resources a task asks for inside bundle `index` of group `pg_hex` (-1: any
// bundle): each of `request` renamed, plus the marker sliver.
std::map<std::string, double> BundleRequest(const std::map<std::string, double>& request,
                                            const std::string& pg_hex, int32_t index);

// The inverse of BundleRequest, the marker left out: what the task asks of its bundle.
std::map<std::string, double> RequestInBundle(const std::map<std::string, double>& renamed,
                                              const std::string& pg_hex, int32_t index);

// What a node adds to its total and free resources while it holds bundle `index`.
ResourceSet BundleReservation(const ResourceSet& bundle, const std::string& pg_hex,
                              int32_t index);

// Whether a resource set names any resource of group `pg_hex` (a worker holding
// some is running in the group).
bool UsesGroup(const ResourceSet& held, const std::string& pg_hex);

}  // namespace ray::scheduler
