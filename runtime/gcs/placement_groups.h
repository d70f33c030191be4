#pragma once
// PlacementGroups: the GCS's table of placement groups and the two-step reservation
// of their bundles on nodes (Ray 2.x semantics).
//
//   create   a group is checked (strategy, bundles, a unique name; whether any
//            cluster of the live nodes could ever hold it when no autoscaler runs)
//            and stored PENDING.
//   place    Schedule() gives the bundles of waiting groups nodes, all or nothing,
//            by scheduler/bundle_placement.h, against what each node has free (as
//            it last said, less what was placed there and not yet reserved).
//   reserve  each raylet syncs every heartbeat ("sync_bundles"): it learns the
//            bundles it is to hold and says which it holds and which it could not
//            reserve. A group is CREATED once every bundle is held. A refusal sends
//            a PENDING group back to placement whole, a RESCHEDULING group's refused
//            bundle alone.
//   remove   REMOVED for good (by the user, or when the creating job finishes):
//            its nodes stop holding the bundles on their next sync, which kills the
//            actors and tasks that ran in it.
//   a node dies: the group's bundles there are placed again (CREATED groups become
//            RESCHEDULING until they are held again).
//
// Every change of a group is written through to the store, so a GCS started again
// on its tables keeps the groups (reservations come back with the raylets' syncs).
// Not thread-safe: the GCS's loop owns it.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/gcs/gcs_records.h"
#include "runtime/gcs/gcs_store.h"
#include "runtime/scheduler/bundle_placement.h"

namespace ray::gcs {

class PlacementGroups {
 public:
  // Loads the groups stored in `store` (not owned; outlives this).
  static Result<std::unique_ptr<PlacementGroups>> Load(GcsStore* store);

  // body: msgpack [name, strategy, bundles, job_id]; `nodes`: the live nodes;
  // `may_grow`: an autoscaler runs (a group no node fits then waits). Returns the
  // group as stored.
  Result<PlacementGroupRecord> Create(const std::string& body,
                                      const std::vector<scheduler::BundleNode>& nodes,
                                      bool may_grow);
  // NotFound for an unknown id; removing a removed group is Ok.
  Status Remove(const std::string& pg_id, const std::string& why);
  // By id, or (id "") the live group with that name.
  Result<PlacementGroupRecord> Get(const std::string& pg_id, const std::string& name) const;
  const std::vector<PlacementGroupRecord>& All() const { return groups_; }

  // A raylet's sync (see gcs_records.h BundleSync).
  BundleSyncReply Sync(const BundleSync& sync);
  void OnNodeDead(const std::string& node_id);
  void OnJobFinished(const std::string& job_id);
  // Places the bundles of waiting groups on `nodes` (the live ones, by id).
  void Schedule(const std::vector<scheduler::BundleNode>& nodes);
  // Whether some group may have bundles to place (Schedule does nothing otherwise).
  bool waiting() const { return waiting_; }

 private:
  explicit PlacementGroups(GcsStore* store) : store_(store) {}
  PlacementGroupRecord* Find(const std::string& pg_id);
  void Save(const PlacementGroupRecord& pg);
  // Marks the group CREATED if every bundle is held.
  void MaybeCreated(PlacementGroupRecord& pg);

  GcsStore* store_;
  std::vector<PlacementGroupRecord> groups_;  // in creation order
  std::map<std::string, size_t> by_id_;
  uint64_t version_ = 1;  // see BundleSyncReply::groups_version
  bool waiting_ = true;   // some group may have unplaced bundles
};

}  // namespace ray::gcs
