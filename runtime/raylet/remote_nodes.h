#pragma once
// What this node knows of its work on the other nodes: the tasks it sent to one and
// has not heard finished, where their results are, which tasks came here from another
// node (told when they finish), and the objects waited for here whose node is unknown
// (looked up in the GCS in bulk). The other nodes' resources are scheduler::Placement's.
//
// Lineage: the spec of every normal task sent from here is kept, with the node it ran
// on, until its job ends, so that results lost with a node can be made again by running
// the task again (and, through its arguments, the tasks before it).
//
// Bookkeeping only: no sockets, no clock; the raylet owns one (not thread-safe).

#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "runtime/ids/ids.h"
#include "runtime/serialization/protocol.h"

namespace ray::raylet {

class RemoteNodes {
 public:
  // Task `t` was sent to `node`: its results will be there.
  void Forwarded(protocol::TaskSpec t, const std::string& node);
  // Task `t` was sent from here straight to a worker on `node` (a direct call), and
  // left its results there.
  void RanOn(protocol::TaskSpec t, const std::string& node);
  // A task this node sent away finished on `node` (another node than the one it was
  // sent to, if it was sent on): its results are there. Returns the task as sent and
  // the node it was sent to; nullopt for unknown tasks (ignored).
  std::optional<std::pair<protocol::TaskSpec, std::string>> FinishedOn(const TaskId& task_id,
                                                                      const std::string& node);
  // Whether task `task_id` was sent from here and not heard finished.
  bool Unfinished(const TaskId& task_id) const { return forwarded_.count(task_id) > 0; }
  // The node an object is on, if known; null if not.
  const std::string* NodeOf(const ObjectId& id) const;
  // Whether a call of `caller` to the actor `actor_id` was sent from here and has not
  // ended: not heard finished, and none of its results stored here (they may come
  // before the report of its end, which travels apart from them). A scan of those
  // unfinished: asked once per direct route.
  bool HasUnfinishedCall(const std::string& actor_id, const std::string& caller) const;
  // Node `node` died: the tasks sent there and not finished, forgotten with where
  // their results would be.
  std::vector<protocol::TaskSpec> TakeLostTasks(const std::string& node);
  // ...and the objects known to be only there, forgotten.
  std::vector<ObjectId> TakeObjectsOn(const std::string& node);

  // The spec of the normal task sent from here that made object `id` (a result or a
  // put of the task), kept as sent last; null if there is none.
  protocol::TaskSpec* LineageOf(const ObjectId& id);
  // The node that task ran on (or runs on), if it was sent from here.
  const std::string* LineageNode(const TaskId& task) const;
  // A task sent from here runs again to make results that were lost (eagerly when
  // their node died, or lazily for a reader: see ObjectLocator::NoCopyLeft). Until one of its
  // results is stored here (Rebuilt) or it is sent to a node (which then knows where
  // they will be), it is not run again for them.
  void Rebuilding(const TaskId& task_id) { rebuilding_.insert(task_id); }
  bool IsRebuilding(const TaskId& task) const { return rebuilding_.count(task) > 0; }
  void Rebuilt(const TaskId& task) {
    if (!rebuilding_.empty()) rebuilding_.erase(task);
  }
  // Forgets everything of the job's tasks and objects (it ended).
  void ForgetJob(const JobId& job_id);

  // Task `task_id` came here from node `origin`.
  void SetOrigin(const TaskId& task_id, const std::string& origin) {
    origins_[task_id] = origin;
  }
  bool FromElsewhere(const TaskId& task_id) const { return origins_.count(task_id) > 0; }
  // The node a task came from, forgotten (it finished); nullopt if it started here.
  std::optional<std::string> TakeOrigin(const TaskId& task_id);

  // An object waited for here whose node is not known yet.
  void Unlocated(const ObjectId& id) { unlocated_.insert(id); }
  void Located(const ObjectId& id) { unlocated_.erase(id); }
  // Node `node` answered a pull of `id` saying it lost its copy (evicted): it is not
  // asked for `id` again (the GCS is not told of evictions) until `id` is stored here.
  void LostAt(const ObjectId& id, const std::string& node) { lost_at_[id].insert(node); }
  bool WasLostAt(const ObjectId& id, const std::string& node) const {
    auto it = lost_at_.find(id);
    return it != lost_at_.end() && it->second.count(node) > 0;
  }
  // Object `id` is stored here (made here, or a copy came).
  void Stored(const ObjectId& id) {
    if (!lost_at_.empty()) lost_at_.erase(id);
    if (!forwarded_.empty() && !id.IsPut() && forwarded_.count(id.Task())) {
      results_came_.insert(id.Task());
    }
  }
  // A copy of `id` was served from here to `node` (it frees it when told, Take).
  void Served(const ObjectId& id, const std::string& node) { served_[id].insert(node); }
  std::set<std::string> TakeServed(const ObjectId& id) {
    auto it = served_.find(id);
    if (it == served_.end()) return {};
    std::set<std::string> nodes = std::move(it->second);
    served_.erase(it);
    return nodes;
  }
  // The objects to look up (binary ids), after dropping those for which drop(id) says
  // they need no look-up any more.
  template <typename Drop>
  std::vector<std::string> ToLocate(Drop&& drop);

 private:
  void SetReturnsNode(const protocol::TaskSpec& t, const std::string& node);

  // Sent elsewhere, not heard finished: task id -> (spec, node).
  std::unordered_map<TaskId, std::pair<protocol::TaskSpec, std::string>, IdHash> forwarded_;
  std::unordered_map<ObjectId, std::string, IdHash> objects_;  // -> node id
  std::unordered_map<TaskId, std::string, IdHash> origins_;  // came here: id -> node
  // Normal tasks sent from here: task id -> (spec, node it ran on).
  std::unordered_map<TaskId, std::pair<protocol::TaskSpec, std::string>, IdHash> lineage_;
  std::unordered_set<ObjectId, IdHash> unlocated_;
  std::unordered_set<TaskId, IdHash> rebuilding_;  // see Rebuilding
  // Tasks in forwarded_ with a result stored here: they ended (see HasUnfinishedCall).
  std::unordered_set<TaskId, IdHash> results_came_;
  std::unordered_map<ObjectId, std::set<std::string>, IdHash> lost_at_;  // see LostAt
  std::unordered_map<ObjectId, std::set<std::string>, IdHash> served_;   // see Served
};

template <typename Drop>
std::vector<std::string> RemoteNodes::ToLocate(Drop&& drop) {
  std::vector<std::string> ids;
  for (auto it = unlocated_.begin(); it != unlocated_.end();) {
    if (drop(*it)) {
      it = unlocated_.erase(it);
    } else {
      ids.push_back(it->Binary());
      ++it;
    }
  }
  return ids;
}

}  // namespace ray::raylet
