#pragma once
// This node's part in placement groups (the GCS keeps the groups and decides where their
// bundles go; gcs_calls.h relays the API's calls): the bundles it reserves and releases
// as the GCS says (bundle_book.h keeps them), and the work that waits for a group.
//   - Sync: tells the GCS what this node holds (and what it refused), reserves the
//     bundles the GCS wants here and releases the others; a change is said again at
//     once, and work waiting for a group looks again.
//   - A group gone from this node takes what runs in it along (Ray kills its actors and
//     fails its tasks); what waits for it is placed again.
//   - Work waiting for a group whose group is removed, or whose bundle cannot hold it,
//     fails with Ray's error (group_tasks.h says which), an actor dying with it.
//
// The raylet owns one (not thread-safe); killing workers, placing and failing tasks and
// an actor's death reach it through Deps.

#include <functional>
#include <string>

#include "runtime/gcs/gcs_client.h"
#include "runtime/raylet/actor_directory.h"
#include "runtime/raylet/bundle_book.h"
#include "runtime/raylet/client_table.h"
#include "runtime/scheduler/infeasible_hold.h"
#include "runtime/scheduler/local_task_queue.h"
#include "runtime/scheduler/placement.h"
#include "runtime/serialization/protocol.h"

namespace ray::raylet {

class GroupBundles {
 public:
  struct Deps {
    std::string self;  // this node's id (binary)
    BundleBook& bundles;
    scheduler::Placement& placement;  // this node's total
    ResourceSet& available;           // ...and its free resources
    ClientTable& clients;
    ActorDirectory& actors;
    scheduler::LocalTaskQueue& ready;
    scheduler::InfeasibleHold& infeasible;
    gcs::GcsClient& gcs;
    // Actor `id` is dead, for `why` (it does not restart).
    std::function<void(const ActorId& id, const std::string& why)> actor_died;
    std::function<void(const std::string& worker)> kill_worker;
    // Places task `t` again (on any node).
    std::function<void(protocol::TaskSpec t)> place;
    std::function<void(const protocol::TaskSpec& t, ray::internal::ErrorKind kind,
                       const std::string& type, const std::string& message)>
        fail;
  };
  explicit GroupBundles(Deps deps) : d_(std::move(deps)) {}

  // Brings the bundles held here in step with the GCS. `again`: once more at once if
  // that changed anything (the GCS hears it sooner).
  void Sync(bool again = true);
  // Fails the work waiting for a group that can never run in it (asked of the GCS).
  void CheckWaiting();

 private:
  using Key = BundleBook::Key;
  void Release(const Key& key);
  void FailUnplaceable(const protocol::TaskSpec& t, const std::string& type,
                       const std::string& why);

  Deps d_;
};

}  // namespace ray::raylet
