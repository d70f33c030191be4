#pragma once
// The cluster YAML of `ray up`: Ray 0.7/0.8's keys, and Ray 1.x's
// `available_node_types` / `head_node_type` form, validated and filled with Ray's
// defaults before anything is touched.
//
// Validation refuses an unknown key, a value of the wrong type and a missing
// required key, naming the key, its path and its line ("cluster.yaml:7: ...").
// Keys Ray has that this ray does not implement (docker with an image, autoscaling
// mode "aggressive", cluster_synced_files, ...) are refused the same way, saying so.
//
// The legacy form (head_node / worker_nodes / min_workers) is rewritten into two
// node types, "ray.head.default" and "ray.worker.default", as Ray 1.x does, so the
// rest of the launcher and the autoscaler see node types only.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/base/status.h"

namespace ray::cluster {

struct NodeType {
  std::string name;
  nlohmann::json node_config = nlohmann::json::object();  // the provider's, opaque here
  // What a node of this type offers; empty: whatever ray on the node detects (the
  // `local` provider and the legacy form), learned once a node of it runs.
  std::map<std::string, double> resources;
  int min_workers = 0;
  int max_workers = 0;
  std::vector<std::string> worker_setup_commands;  // overrides the global list if set
  bool has_worker_setup_commands = false;
};

struct ClusterConfig {
  std::string cluster_name = "default";
  int min_workers = 0;   // legacy form: of the default worker type
  int max_workers = 2;   // workers of all types together; the head is not counted
  int initial_workers = 0;
  double target_utilization_fraction = 0.8;  // Ray 0.7's load rule
  double idle_timeout_minutes = 5;
  double upscaling_speed = 1.0;

  // provider: type is "local" (ssh to head_ip / worker_ips), "fake_multinode" (nodes
  // are processes on this machine) or "external" (module: a NodeProvider .so).
  std::string provider_type;
  nlohmann::json provider = nlohmann::json::object();  // the whole section
  std::string head_ip;                                  // local
  std::vector<std::string> worker_ips;                  // local

  std::string ssh_user;
  std::string ssh_private_key;  // expanded (~ -> $HOME), absolute

  std::vector<NodeType> node_types;  // the head's type included
  std::string head_node_type;

  std::map<std::string, std::string> file_mounts;  // remote path -> local path (absolute)
  std::vector<std::string> initialization_commands;
  std::vector<std::string> head_setup_commands;    // setup_commands prepended
  std::vector<std::string> worker_setup_commands;  // setup_commands prepended
  std::vector<std::string> head_start_ray_commands;
  std::vector<std::string> worker_start_ray_commands;
  // Copy the `ray` that runs `ray up` (binary, bundled plugins, SDK) to every node
  // and put it first on the PATH of the commands run there. false: the hosts have
  // ray installed and on their PATH already (this ray's own key, default true).
  bool ship_ray = true;

  // The validated config with defaults filled in, as the head's autoscaler reads it
  // back (~/ray_bootstrap_config.yaml).
  nlohmann::json json;

  const NodeType* FindType(const std::string& name) const;
  const NodeType& HeadType() const { return *FindType(head_node_type); }
  // Worker types (all but the head's), in name order.
  std::vector<const NodeType*> WorkerTypes() const;
  // Setup commands of a worker of `type`: its own list if it has one, else the global.
  const std::vector<std::string>& SetupCommandsOf(const NodeType& type) const;
};

// Reads, validates and fills in `path`. Errors are InvalidArgument naming the file,
// the line and the key. A config `ray up` wrote for the head (with "_bootstrap":
// true) is filled already and read as it is.
Result<ClusterConfig> LoadClusterConfig(const std::string& path);
// The same over YAML text; `source` names it in errors.
Result<ClusterConfig> ParseClusterConfig(const std::string& yaml, const std::string& source);
// A config already validated and filled (the JSON of ClusterConfig::json).
Result<ClusterConfig> ClusterConfigFromJson(const nlohmann::json& json);

// Overrides from `ray up` flags (-n, --min-workers, --max-workers), checked again.
Status ApplyOverrides(ClusterConfig& config, const std::string& cluster_name,
                      std::optional<int> min_workers, std::optional<int> max_workers);

// Hash of what a node of `type` is launched with (its node_config and auth): a node
// whose tag differs is outdated and replaced.
std::string LaunchHash(const ClusterConfig& config, const NodeType& type);

}  // namespace ray::cluster
