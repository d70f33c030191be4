#pragma once
// Tasks that cross nodes, both ways (their bookkeeping is remote_nodes.h):
//   - sent from here: a task goes to the node that should run it (an actor's creation
//     takes the calls made meanwhile along), its resources counted against that node
//     until its reports show them, its results fetched at once if someone here waits
//     for them; when it finishes, its small results come back with the news;
//   - sent here: its missing arguments are fetched from its origin, it is placed here
//     (never sent on), and its origin is told when it finishes, with its small results
//     (after the borrows its worker made of them are acknowledged).
//
// The raylet owns one (not thread-safe); frames to other nodes, placing a task here,
// and storing a result that came back reach it through Deps.

#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "runtime/base/clock.h"
#include "runtime/ids/ids.h"
#include "runtime/raylet/actor_directory.h"
#include "runtime/raylet/object_lifetime.h"
#include "runtime/raylet/object_locator.h"
#include "runtime/raylet/object_table.h"
#include "runtime/raylet/peer_holds.h"
#include "runtime/raylet/remote_nodes.h"
#include "runtime/scheduler/placement.h"
#include "runtime/serialization/protocol.h"

namespace ray::raylet {

class RemoteTasks {
 public:
  struct Deps {
    std::string self;  // this node's id (binary)
    RemoteNodes& remote;
    scheduler::Placement& placement;
    ActorDirectory& actors;
    const ObjectTable& objects;
    ObjectLocator& locator;
    ObjectLifetime& lifetime;
    PeerHolds& peer_holds;
    std::unordered_set<ObjectId, IdHash>& evicted;  // copies evicted here
    const Clock& clock;
    // Sends a frame to another node (false: its address is not known yet).
    std::function<bool(const std::string& node, const std::string& frame)> tell;
    // Places a task sent here on this node.
    std::function<void(protocol::TaskSpec t)> place_here;
    // Stores a copy of a result that came back (nobody here references the copy).
    std::function<void(const protocol::ObjectPayload& p)> store_copy;
    // Whether `t`'s job ended (a detached actor's creation outlives it).
    std::function<bool(const protocol::TaskSpec& t)> job_over;
  };
  explicit RemoteTasks(Deps deps) : d_(std::move(deps)) {}

  // Sends task `t` to node `node` to run there.
  void Send(protocol::TaskSpec t, const std::string& node);
  // Node `t.origin_node` sent task `t.spec` here.
  void Received(protocol::ForwardTask t);
  // Task `task_id` ended here with `returns` (as the worker reported them, or errors):
  // if it was sent here, its origin is told, with its small results as stored.
  void Finished(const TaskId& task_id, const std::vector<protocol::ObjectPayload>& returns);
  // A node reports that a task sent from here finished there (`f.node_id`: it may have
  // been sent on), with its small results.
  void FinishedElsewhere(const protocol::TaskFinished& f);

 private:
  Deps d_;
};

}  // namespace ray::raylet
