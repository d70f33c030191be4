#pragma once
// Where a cluster's nodes come from: Ray's NodeProvider contract. A provider lists,
// creates and terminates nodes and keeps a few string tags on each; the launcher
// and the autoscaler decide, the provider only does. Tags keep Ray's names, so that
// what a node is (head or worker, its type, its setup status, the config hashes it
// was made with) reads the same as in Ray.
//
// Providers:
// - `local`: the hosts listed in the YAML (head_ip, worker_ips), reached over ssh.
//   "Creating" a node claims a listed host; the node id is its address. State: a
//   JSON file, locked while read and written, in the state dir of the machine
//   acting (the launcher's for the head; the head's for workers).
// - `fake_multinode`: nodes are raylet processes of this machine with the resources
//   their type gives (`ray start --address ... --temp-dir <its dir>`), so
//   autoscaling can be used and tested on one machine. No ssh, no updaters.
// - `external`: a NodeProvider plugin .so (see <ray/node_provider.h>).
//
// Not thread-safe: one caller at a time per provider object. Several processes may
// share one state file; each call reads it afresh under a lock.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/cluster/cluster_config.h"

namespace ray::cluster {

using Tags = std::map<std::string, std::string>;

// Ray's tag names and values.
inline constexpr const char* kTagNodeKind = "ray-node-type";  // kKindHead / kKindWorker
inline constexpr const char* kTagUserNodeType = "ray-user-node-type";
inline constexpr const char* kTagNodeStatus = "ray-node-status";
inline constexpr const char* kTagLaunchConfig = "ray-launch-config";
inline constexpr const char* kTagRuntimeConfig = "ray-runtime-config";
inline constexpr const char* kTagNodeName = "ray-node-name";
inline constexpr const char* kTagClusterName = "ray-cluster-name";
inline constexpr const char* kKindHead = "head";
inline constexpr const char* kKindWorker = "worker";
inline constexpr const char* kStatusUninitialized = "uninitialized";
inline constexpr const char* kStatusWaitingForSsh = "waiting-for-ssh";
inline constexpr const char* kStatusSyncingFiles = "syncing-files";
inline constexpr const char* kStatusSettingUp = "setting-up";
inline constexpr const char* kStatusUpToDate = "up-to-date";
inline constexpr const char* kStatusUpdateFailed = "update-failed";

struct ProviderNode {
  std::string id;
  std::string ip;  // where ssh, and the other nodes, reach it
  Tags tags;
  // fake_multinode: the node's ray temp dir (its "host"); "" for real hosts.
  std::string ray_temp_dir;
};

class NodeProvider {
 public:
  virtual ~NodeProvider() = default;
  // Nodes not terminated whose tags include every entry of `filter`.
  virtual Result<std::vector<ProviderNode>> NonTerminatedNodes(const Tags& filter) = 0;
  // Creates `count` nodes of `type` tagged `tags`; returns their ids. Fewer than
  // asked (a local cluster out of hosts) is not an error: the caller sees the count.
  virtual Result<std::vector<std::string>> CreateNodes(const NodeType& type, const Tags& tags,
                                                       int count) = 0;
  // Merges `tags` into the node's.
  virtual Status SetNodeTags(const std::string& id, const Tags& tags) = 0;
  // Releases the nodes. Ray on a real host must be stopped first (the caller does,
  // over ssh); fake_multinode nodes are stopped here.
  virtual Status TerminateNodes(const std::vector<std::string>& ids) = 0;
  // False when nodes start ray themselves (fake_multinode): no ssh, no NodeUpdater.
  virtual bool UsesNodeUpdaters() const { return true; }
};

// What a provider needs besides the config.
struct ProviderContext {
  std::string state_dir;    // holds the providers' state files
  std::string gcs_address;  // fake_multinode workers join it (tcp://ip:port)
  std::string token_file;   // ... presenting this token
};

Result<std::unique_ptr<NodeProvider>> MakeNodeProvider(const ClusterConfig& config,
                                                       const ProviderContext& context);

// fake_multinode: the directory standing for the head "host" (its HOME) of a
// cluster, under `state_dir`.
std::string FakeClusterDir(const std::string& state_dir, const std::string& cluster_name);

// The local provider's state file of `cluster_name` in `state_dir`.
std::string LocalStatePath(const std::string& state_dir, const std::string& cluster_name);

// Whether `node` has every tag of `filter`.
bool TagsMatch(const Tags& node, const Tags& filter);

}  // namespace ray::cluster
