#pragma once
// One autoscaling round, as the monitor runs it every update interval: look at the
// provider's worker nodes and the GCS's view of the cluster, let the policy
// (runtime/scheduler/autoscaling_policy.h) decide, and carry the decision out:
// launch nodes, have them set up, stop and release nodes, set up again nodes whose
// setup changed or was cut off, restart ray on nodes whose raylet went missing.
//
// Its seams are the NodeProvider, the NodeSetups (the monitor's NodeUpdater threads
// over ssh; a double in tests) and the time passed in, so a test drives rounds with
// method calls. Not thread-safe: one caller.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/base/status.h"
#include "runtime/cluster/cluster_config.h"
#include "runtime/cluster/node_provider.h"
#include "runtime/cluster/node_updater.h"
#include "runtime/scheduler/autoscaling_policy.h"
#include "runtime/serialization/protocol.h"

namespace ray::cluster {

// Setting nodes up, and stopping ray on them, away from the round.
class NodeSetups {
 public:
  virtual ~NodeSetups() = default;
  virtual void Start(const ProviderNode& node, UpdateOptions options) = 0;
  virtual bool Busy(const std::string& node_id) const = 0;
  // The setups that ended since the last call: node id -> result.
  virtual std::map<std::string, Status> Finished() = 0;
  // Stops ray on a node before it is released (for nodes set up by updaters).
  virtual void StopRay(const ProviderNode& node) = 0;
};

// What a worker's setup ships besides its commands.
struct SetupFiles {
  std::string runtime_dir;  // RuntimeStagingDir, or "" (ship_ray: false)
  std::string token_file;
};

// The GCS's view: nodes ALIVE, and which of them is the head (by session dir).
struct ClusterView {
  std::vector<protocol::NodeInfo> alive;
  std::string head_session_dir;
};

class Autoscaler {
 public:
  Autoscaler(NodeProvider& provider, NodeSetups& setups, SetupFiles files)
      : provider_(provider), setups_(setups), files_(std::move(files)) {}

  // One round at monotonic time `now_s`. A provider error ends it (the caller pauses
  // and tries again); a failed launch too, after the rest of the round.
  Status Update(const ClusterConfig& config, const ClusterView& view, double now_s,
                double interval_s);

  // The last round's view for `ray status` (workers, types, demand, decision).
  const nlohmann::json& View() const { return status_; }
  void RecordError(const std::string& error) { status_["last_error"] = error; }

 private:
  scheduler::AutoscalingInput Observe(const std::vector<ProviderNode>& workers,
                                      const ClusterView& view, double now_s);
  scheduler::AutoscalingConfig PolicyConfig() const;
  void Terminate(const std::vector<ProviderNode>& workers, const std::string& id,
                 const std::string& reason);
  Status Launch(const std::string& type_name, int count);
  void KeepUpToDate(const std::vector<ProviderNode>& workers, double now_s);
  void Reap(double now_s, double interval_s);
  void Report(const std::vector<ProviderNode>& workers, const scheduler::AutoscalingInput& input,
              const scheduler::AutoscalingDecision& d);

  NodeProvider& provider_;
  NodeSetups& setups_;
  SetupFiles files_;
  ClusterConfig config_;                         // of the round in progress
  std::map<std::string, double> last_used_;      // node id -> s: something in use then
  std::map<std::string, double> missing_since_;  // node id -> s: without a raylet since
  std::string last_summary_;
  int launch_failures_ = 0;
  int setup_failures_ = 0;        // in a row
  double launch_hold_until_ = 0;  // s: no launches before (after setup failures)
  bool bringup_ = true;           // initial_workers holds until a setup succeeds
  nlohmann::json status_ = nlohmann::json::object();
};

}  // namespace ray::cluster
