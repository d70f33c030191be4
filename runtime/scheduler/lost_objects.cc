#include "runtime/scheduler/lost_objects.h"

#include <unordered_set>

#include "runtime/base/hex.h"

namespace ray::scheduler {

namespace {

Recovery Lost(std::string why) { return {Recovery::kLost, std::move(why)}; }

// Whether `lineage` (the task that makes `id`, kept here) can make `id` again.
bool HasLineage(const ObjectId& id, const protocol::TaskSpec* lineage) {
  return lineage && !id.IsPut();
}

}  // namespace

Recovery RecoverObject(const ObjectId& id, const ObjectFacts& f) {
  if (f.rebuilding) return {};  // being made again
  // Its lineage is here: made again, lazily, now that someone waits for it. (Its
  // arguments, if they have no copy left either, are made again in turn when the task
  // waits for them, or another node pulls them from here.)
  if (HasLineage(id, f.lineage)) {
    if (f.lineage->max_retries == 0) {
      return Lost("has no copy left on a live node, and its task " + f.lineage->function +
                  " has no retries left to make it again");
    }
    return {Recovery::kRunAgain, ""};
  }
  // A put of a process on a node now dead (its id names that node) is lost for good.
  if (id.IsPut() && f.putter && !f.putter_alive) {
    return Lost("was put by a task on node " + ToHex(*f.putter) +
                ", which died; a put object cannot be made again");
  }
  // A result whose task was submitted on a node now dead: that node (its owner) kept
  // its lineage, so nobody can make it again (Ray's OwnerDiedError).
  if (!id.IsPut() && f.owner && *f.owner != f.self) {
    if (!f.owner_alive) {
      return Lost("was made by a task submitted on node " + ToHex(*f.owner) +
                  ", its owner, which died: no live node holds a copy and its lineage died "
                  "with that node");
    }
    // Its owner lives and keeps its lineage: once its copies are known to be gone (a
    // copy evicted here included), it is pulled from there, made again if need be.
    if (f.copies_gone || f.evicted_here) return {Recovery::kAskOwner, ""};
  }
  if (f.evicted_here) {
    return Lost("was evicted from node " + ToHex(f.self) +
                "'s full object store and no other node holds it");
  }
  return {};
}

DeadNodeRecovery RecoverFromDeadNode(const LostObjects& objects, const std::string& dead) {
  DeadNodeRecovery out;
  std::unordered_set<TaskId, IdHash> again;
  for (const auto& [id, lineage] : objects) {
    if (HasLineage(id, lineage) && again.count(lineage->task_id)) continue;  // runs already
    if (HasLineage(id, lineage) && lineage->max_retries != 0) {
      again.insert(lineage->task_id);
      out.run_again.emplace_back(id, lineage);
      continue;
    }
    std::string why = HasLineage(id, lineage)
                          ? ", and its task " + lineage->function + " has no retries left"
                      : id.IsPut() ? " (a put object: it cannot be made again)"
                                   : " (its task was not submitted on this node)";
    out.lost.emplace_back(id, "was only on node " + ToHex(dead) + ", which died" + why);
  }
  return out;
}

}  // namespace ray::scheduler
