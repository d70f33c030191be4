#pragma once
// What a node does about an object it waits for that has no copy left on a live node:
// make it again from its lineage (Ray's lineage reconstruction: the task that made it
// runs again while it has retries), ask its owner for it (the node that submitted its
// task keeps the lineage, and makes it again if need be), wait (it is being made, or
// may be reported yet), or store the error that says why it is lost for good.
//
// Pure: the raylet gathers what it knows of the object (ObjectFacts) and carries out
// the decision (it runs the task, pulls from the owner, or stores the error).

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/ids/ids.h"
#include "runtime/serialization/protocol.h"

namespace ray::scheduler {

// What this node knows of an object no live node is known to hold.
struct ObjectFacts {
  std::string self;  // this node's id
  // Its task runs again already, to make it.
  bool rebuilding = false;
  // The task that makes it, kept here if it was submitted here (results only).
  const protocol::TaskSpec* lineage = nullptr;
  // A put: the node that put it, if it is known here, and whether it lives.
  std::optional<std::string> putter;
  bool putter_alive = false;
  // A result: the node that submitted its task (its owner), if it is known here, and
  // whether it lives.
  std::optional<std::string> owner;
  bool owner_alive = false;
  // Its copies are gone: the GCS listed only dead nodes (or this one), or a node said
  // it lost its copy. Else it may be on no list yet (made, not reported).
  bool copies_gone = false;
  // This node's copy was evicted from its full store.
  bool evicted_here = false;
};

struct Recovery {
  enum Action {
    kWait,      // it may still come: nothing to do now
    kRunAgain,  // its task (lineage) runs again
    kAskOwner,  // pull it from its owner (ObjectFacts::owner)
    kLost,      // lost for good: `why`, after "object <id> "
  } action = kWait;
  std::string why;
};

// The decision for object `id`, awaited here, that has no copy on a live node.
Recovery RecoverObject(const ObjectId& id, const ObjectFacts& facts);

// Objects whose only copies were on node `dead` (it died), each with the task that
// makes it if that is kept here (null if not).
using LostObjects = std::vector<std::pair<ObjectId, const protocol::TaskSpec*>>;
struct DeadNodeRecovery {
  // The tasks that run again, each once however many of its results were lost (one
  // retry used), with the first of those results.
  LostObjects run_again;
  // The objects lost for good, and why (after "object <id> ").
  std::vector<std::pair<ObjectId, std::string>> lost;
};
DeadNodeRecovery RecoverFromDeadNode(const LostObjects& objects, const std::string& dead);

}  // namespace ray::scheduler
