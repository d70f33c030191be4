#pragma once
// The autoscaler's policy: given the cluster as the monitor sees it on one tick, which
// worker nodes to launch and which to terminate. Pure and deterministic: no I/O, no
// clock (idle time comes in as input), the same input gives the same decision. The
// monitor owns the provider, the GCS view and the launch threads; it calls Decide()
// every few seconds and carries the decision out.
//
// It follows Ray 1.x's StandardAutoscaler terminate pass and
// resource_demand_scheduler.get_nodes_to_launch (python/ray/autoscaler/_private/):
// min_workers per type, first-fit bin packing of the waiting demand, node types picked
// by Ray's utilisation score, launches limited per type by upscaling_speed. Ray 0.7's
// target_utilization_fraction rule is available as an option. Differences from Ray:
// the best-scoring type is always taken (Ray 2.x draws by weight); placement groups
// and request_resources() are not modelled (the monitor flattens bundles into demand).

#include <map>
#include <string>
#include <vector>

namespace ray::scheduler {

// One kind of worker node the cluster may launch (an available_node_types entry).
struct NodeTypeSpec {
  std::string name;
  // Empty: not known yet (legacy head_node/worker_nodes configs and the local provider,
  // where ray reports the resources): taken from a running worker of the type, else
  // AutoscalingConfig::head_resources.
  std::map<std::string, double> resources;
  int min_workers = 0;
  int max_workers = 0;
};

struct AutoscalingConfig {
  std::vector<NodeTypeSpec> worker_types;        // the first is the 0.7 rule's default type
  int max_workers = 2;                           // all worker types together; the head not counted
  double upscaling_speed = 1.0;                  // per type, pending <= max(batch, speed * running)
  double idle_timeout_s = 300;                   // idle_timeout_minutes * 60
  double target_utilization_fraction = 0;        // Ray 0.7's rule; 0 = off
  int max_launch_batch = 5;                      // nodes per create call; also the rate floor
  int max_concurrent_launches = 10;              // launches in flight at once
  std::map<std::string, double> head_resources;  // for types whose resources are unknown
};

// A worker node the provider lists as not terminated.
struct WorkerNodeView {
  std::string id;
  std::string type;          // "" or a name not in the config: terminated ("unknown type")
  bool ray_running = false;  // false while launching or setting up (no raylet in the GCS)
  bool failed = false;       // its setup failed: terminated ("launch failed")
  bool outdated = false;     // its launch config hash differs: terminated ("outdated")
  std::map<std::string, double> total;      // from the GCS, when ray_running
  std::map<std::string, double> available;  // from the GCS, when ray_running
  double idle_s = 0;  // seconds since it last had anything in use (the monitor's clock)
};

struct AutoscalingInput {
  std::vector<WorkerNodeView> workers;
  std::map<std::string, double> head_total, head_available;
  // Shapes of the work waiting for resources anywhere in the cluster (queued tasks,
  // actors waiting to be placed, infeasible ones included): one entry per waiting item.
  std::vector<std::map<std::string, double>> demand;
  // Type name -> nodes being created and not yet listed by the provider.
  std::map<std::string, int> launches_in_flight;
};

struct Termination {
  std::string node_id;
  std::string reason;  // "idle", "outdated", "max workers", "unknown type", "launch failed"
};

struct AutoscalingDecision {
  std::map<std::string, int> to_launch;  // type name -> count > 0, within every limit
  std::vector<Termination> to_terminate;
  // Shapes (deduplicated, first-seen order) that fit neither the head nor an empty node
  // of any type that may be launched: nothing is launched for them.
  std::vector<std::map<std::string, double>> infeasible;

  // One line for the monitor's log, e.g.
  // launch 2 x cpu; terminate w3 (idle); infeasible {"CPU": 100}
  std::string Summary() const;
};

// Terminations first (broken, then idle, then over a max), then launches:
// min_workers, then nodes for the demand the cluster cannot hold, then (option) the
// 0.7 utilisation target. Limits: a type's max_workers and max_workers always; per
// type, pending + new <= max(max_launch_batch, upscaling_speed * max(running, 1)),
// except that launches for min_workers may go beyond it; in flight + new <=
// max_concurrent_launches, min_workers launches served first. The algorithm is stated
// at the top of the .cc.
AutoscalingDecision Decide(const AutoscalingConfig& config, const AutoscalingInput& input);

}  // namespace ray::scheduler
