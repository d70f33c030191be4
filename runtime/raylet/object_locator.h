#pragma once
// Where an object awaited here comes from when this node does not hold it: the node
// known to have it (the one its task was sent to, or a hint), else wherever the GCS's
// directory lists it (asked in bulk, with the heartbeat). With no copy left on a live
// node, scheduler/lost_objects.h decides, and this carries it out: the task that made
// it runs again (its lineage is kept here), its owner is asked for it, or it is lost
// for good. A node's death does the same for the objects known to be only there.
//
// The raylet owns one (not thread-safe). Pulls, the GCS's directory, and what becomes
// of a lost object or of a task run again reach it through Deps, so a test drives it
// by method calls on real tables.

#include <functional>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/ids/ids.h"
#include "runtime/raylet/object_table.h"
#include "runtime/raylet/remote_nodes.h"
#include "runtime/scheduler/placement.h"
#include "runtime/serialization/protocol.h"

namespace ray::raylet {

class ObjectLocator {
 public:
  // For each binary object id asked about, the nodes the GCS's directory lists as
  // holding it (an error: the GCS did not answer).
  using Directory =
      std::function<Result<std::vector<std::vector<std::string>>>(const std::vector<std::string>&)>;
  struct Deps {
    std::string self;  // this node's id (binary)
    RemoteNodes& remote;
    const scheduler::Placement& placement;
    const ObjectTable& objects;
    const std::unordered_set<ObjectId, IdHash>& evicted;  // copies evicted here
    // Starts pulling object `id` from `node`: false if it cannot (no address known).
    std::function<bool(const ObjectId& id, const std::string& node)> pull;
    std::function<bool(const ObjectId& id)> pulling;  // a pull of it runs
    Directory directory;
    // Object `id` is lost for good, `why` (after "object <id> ").
    std::function<void(const ObjectId& id, const std::string& why)> lost;
    // Runs a task again, on whichever node should run it.
    std::function<void(protocol::TaskSpec t)> place;
  };
  explicit ObjectLocator(Deps deps) : d_(std::move(deps)) {}

  // Starts fetching object `id`, missing here: from the node its task was sent to,
  // else from node `hint` (empty: none), else, in a cluster, with the next
  // LocateInBulk.
  void Locate(const ObjectId& id, const std::string& hint);
  // The objects not located yet that are still awaited here, looked up in the GCS's
  // directory at once: pulled from a live node that lists them, else decided as
  // objects with no copy left.
  void LocateInBulk();
  // A pull of `id` from node `from` was answered with an ObjectLostError (its copy was
  // evicted there). True if it is looked for elsewhere: its lineage is here, or its
  // owner is a third node (whose own word that it is lost is final); false if the
  // error stands (it is stored as the object).
  bool LookElsewhere(const ObjectId& id, const std::string& from);
  // Node `node` died: the objects known to be only there that no live node holds are
  // made again from their lineage (each task once), or lost.
  void RecoverObjectsOf(const std::string& node);
  // Runs task `t`, sent from here before, again to make results that were lost (it is
  // not run again for them until it ends or goes to a node: RemoteNodes::Rebuilding).
  void RunAgain(protocol::TaskSpec t);
  // The node that submitted the task that makes `id` (a result's owner, which keeps
  // its lineage): this node, or another it knows of; nullopt for puts and unknown
  // nodes.
  std::optional<std::string> OwnerNode(const ObjectId& id) const;

 private:
  // Object `id`, awaited here, has no copy on a live node (as the GCS knows): carries
  // out RecoverObject's decision. `copies_gone`: the GCS listed only dead nodes, or a
  // node answered that it lost its copy. Returns why it is lost for good, or nullopt
  // while it may still come.
  std::optional<std::string> NoCopyLeft(const ObjectId& id, bool copies_gone);
  // Runs `lineage` again to make its lost result `id` (which `why`, logged), one retry
  // used.
  void RunAgainToMake(const ObjectId& id, const std::string& why, protocol::TaskSpec& lineage);

  Deps d_;
};

}  // namespace ray::raylet
