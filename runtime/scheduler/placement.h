#pragma once
// Where work should run: this node's resources against the other nodes' as the node
// last heard of them from the GCS (their heartbeats), with the tasks it has sent to a
// node since counted against that node's free resources.
//
// The rules (see ChooseNode): a task starts here if it fits now and nothing of its
// shape waits before it; else it spills to the first node (by id) with room now; else
// it waits here if this node could ever run it; else on a node that could; else no
// node fits it (infeasible). Queued tasks that cannot start here now spill the same
// way (RemoteWithRoom).
//
// Pure: no sockets, no clock; the raylet owns one (not thread-safe).

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "runtime/scheduler/resources.h"

namespace ray::scheduler {

class Placement {
 public:
  explicit Placement(ResourceSet total) : total_(std::move(total)) {}
  // This node's total: what it was started with, plus the resources of the placement
  // groups' bundles reserved here (renamed per group). Placement is its one owner.
  const ResourceSet& local_total() const { return total_; }
  // This node's total changed (a placement group's bundle reserved or released here).
  void SetLocalTotal(ResourceSet total) { total_ = std::move(total); }

  // Replaces what is known of another node (its report, read at `now_ms`), less the
  // tasks charged to it within kChargeLagMs before (the report may not show them yet).
  // `reachable`: its raylet can be sent work (it has a peer address). Returns whether
  // the node was alive before.
  bool UpdateNode(const std::string& id, bool alive, bool reachable, ResourceSet total,
                  ResourceSet available, int64_t now_ms);
  bool Known(const std::string& id) const { return nodes_.count(id) > 0; }
  // Whether another node is known and alive.
  bool Alive(const std::string& id) const {
    auto it = nodes_.find(id);
    return it != nodes_.end() && it->second.alive;
  }
  // The other node, alive or dead, whose id starts with `prefix` (e.g. a task id's
  // submitter tag, see NewTaskId); nullopt if none, or if several do.
  std::optional<std::string> NodeWithPrefix(const std::string& prefix) const;
  // Whether any other node is alive.
  bool MultiNode() const;
  // Counts what `key` names (a task's binary id, or a lease asked for), sent to
  // `node` at `now_ms`, against its free resources
  // until an update of the node is read kChargeLagMs later or more: a node's reports
  // lag behind (its heartbeat every 250 ms, then the GCS), and a burst sent on a report
  // that does not show the tasks sent just before would send it more than it has room
  // for.
  void Charge(const std::string& node, const ResourceSet& need, int64_t now_ms,
              const std::string& key);
  static constexpr int64_t kChargeLagMs = 1000;
  // What `key` names ended on `node`. While its charge still counts (no
  // report can show it), what it held is free there again (never more than the node's
  // total), so that the tasks queued here follow at once; once reports count it, the
  // next one says.
  void Refund(const std::string& node, const std::string& key);

  // This node's total and every live node's.
  ResourceSet ClusterTotal() const;
  // Whether this node could ever run a task needing `need`.
  bool FitsHere(const ResourceSet& need) const { return total_.Contains(need); }
  // The first reachable live node (by id) with `need` free now, passing over those
  // `skip` names (if given).
  std::optional<std::string> RemoteWithRoom(
      const ResourceSet& need,
      const std::function<bool(const std::string& node)>& skip = nullptr) const;
  // Where a task needing `need` should run: "" here, a node id, or nullopt if no node
  // could ever fit it. `available`: this node's free resources; `shape_waiting`:
  // whether tasks of its shape are queued here.
  std::optional<std::string> ChooseNode(const ResourceSet& need, const ResourceSet& available,
                                        bool shape_waiting) const;

 private:
  struct Node {
    bool alive = false;
    bool reachable = false;
    ResourceSet total, available;
    struct Charged {
      int64_t when_ms;
      std::string key;
      ResourceSet need;
    };
    std::deque<Charged> charges;  // oldest first, not yet shown by a report
  };
  ResourceSet total_;
  std::map<std::string, Node> nodes_;  // the other nodes, by id
};

}  // namespace ray::scheduler
