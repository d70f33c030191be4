#pragma once
// When objects go: the raylet's side of the ownership protocol (object_holds.h has it
// on one node, peer_holds.h across nodes). It counts who else holds the objects whose
// ids left their owner (processes that borrow them, tasks whose arguments hold them,
// objects whose values hold them, other nodes) and frees an object once its owner let
// go and its last holder went: this node's copy, then what only its value held, the
// copies on other nodes, and the actor whose handles it stood for. An object homed on
// another node is one holder there while anything here holds it.
//
// The raylet owns one (not thread-safe) and hands it what clients and other nodes say;
// the store, the actors and the GCS reach it through Deps.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/base/clock.h"
#include "runtime/ids/ids.h"
#include "runtime/raylet/object_holds.h"
#include "runtime/raylet/object_table.h"
#include "runtime/raylet/peer_holds.h"
#include "runtime/raylet/remote_nodes.h"
#include "runtime/scheduler/placement.h"
#include "runtime/serialization/protocol.h"

namespace ray::raylet {

class ObjectLifetime {
 public:
  struct Deps {
    std::string self;  // this node's id (binary)
    ObjectTable& objects;
    PeerHolds& peer_holds;
    RemoteNodes& remote;
    const scheduler::Placement& placement;
    const Clock& clock;
    // Frees the store's copy of shared-memory object `id` (`keep_segment`: the store
    // only forgets it; its client fills the segment again).
    std::function<void(const ObjectId& id, bool keep_segment)> free_shared;
    // The last handle to actor `id` went (its creation result was freed).
    std::function<void(const ActorId& id)> actor_unreferenced;
    // Whether task `task`'s arguments stay held after it ended (an actor that may
    // restart runs its constructor again, with the same arguments).
    std::function<bool(const TaskId& task)> keeps_arguments;
    // Reads the cluster from the GCS again: true if it did.
    std::function<bool()> refresh_cluster;
  };
  explicit ObjectLifetime(Deps deps) : d_(std::move(deps)) {}

  // Client `peer` borrows objects, lets go of objects it owns, or no longer borrows
  // some (protocol::FreeObjects).
  void OnFree(const std::string& peer, const protocol::FreeObjects& m);
  // Another node borrows objects homed here, no longer borrows some, or drops copies
  // (protocol::PeerHolds).
  void OnPeerHolds(const protocol::PeerHolds& m);
  // Holds of `holder` (an ObjectHolds key) on the objects `ids`.
  void AddHolds(const std::vector<ObjectId>& ids, const std::string& holder);
  // Every hold of `holder` goes; what it alone held is freed.
  void ReleaseHolds(const std::string& holder);
  // A result of task `task` is stored: the task's arguments let go of what they held.
  void TaskEnded(const TaskId& task);
  // Forgets the holds on job `job_id`'s objects (it ended: they are freed).
  void EraseJob(const JobId& job_id) { holds_.EraseJob(job_id); }

 private:
  // Frees an object whose home is here (one not here yet is dropped when it comes),
  // then what only it held; copies on other nodes are dropped, and an actor whose
  // creation result it is (its handles' object) is unreferenced.
  void Free(const ObjectId& id, bool keep_segment = false);
  // Drops this node's copy of `id` (one not here yet, of a task sent here, is dropped
  // when it comes), then what only it held.
  void DropLocal(const ObjectId& id, bool keep_segment = false);
  // Nothing here holds `id` any more: freed if its home is here, else its home is told
  // (a home that is gone: this node's copy is dropped).
  void Unheld(const ObjectId& id);
  // Whether this node's raylet counts the holders of `id` (see HomeTag).
  bool HomeIsHere(const ObjectId& id) const;
  // The live node (not this one) whose raylet counts the holders of `id`; nullopt if
  // it is this node, or not a live node known here (dead, or not heard of).
  std::optional<std::string> HomeOf(const ObjectId& id) const;

  Deps d_;
  ObjectHolds holds_;
};

}  // namespace ray::raylet
