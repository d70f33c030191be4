#pragma once
// What setting up a node of a cluster means, shared by `ray up` (the head) and the
// head's autoscaler (the workers): the commands it runs, the files it receives,
// how it is reached, and the hash that says whether its setup is current.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/cluster/cluster_config.h"
#include "runtime/cluster/command_runner.h"
#include "runtime/cluster/node_provider.h"
#include "runtime/cluster/node_updater.h"

namespace ray::cluster {

// ~/.ray/clusters of this user: the launcher's state (tokens, provider state).
std::string DefaultStateDir();

// The ray runtime to ship (ship_ray): a directory of links to this ray's binary,
// bundled plugins and SDK headers, laid out as an install (bin/, lib/ray/,
// include/ray/, lib/cmake/Ray/), made under `state_dir`. rsync copies the files the
// links point at into ~/.ray/runtime on the node.
Result<std::string> RuntimeStagingDir(const std::string& state_dir);

// Hash of a node type's setup: file mounts (their contents too), initialization,
// setup and start commands. A node tagged with another hash is set up again.
std::string RuntimeHash(const ClusterConfig& config, const std::vector<std::string>& setup,
                        const std::vector<std::string>& start);

// The update of the head (`ray up`) and of a worker of `type` (the autoscaler).
// `runtime_dir`: RuntimeStagingDir, or "" not to ship ray; `token_file`: the cluster
// token, shipped to ~/.ray/cluster_token.
UpdateOptions HeadUpdate(const ClusterConfig& config, const std::string& runtime_dir,
                         const std::string& token_file);
UpdateOptions WorkerUpdate(const ClusterConfig& config, const NodeType& type,
                           const std::string& runtime_dir, const std::string& token_file);

// How to run commands on `node`: ssh for real hosts, a local bash in the node's
// directory for fake_multinode. RAY_HEAD_IP is exported as `head_ip`.
std::unique_ptr<CommandRunner> RunnerFor(const ClusterConfig& config, const ProviderNode& node,
                                         const std::string& head_ip,
                                         const std::string& state_dir);

// The tags a new node of `type` is created with.
Tags NewNodeTags(const ClusterConfig& config, const NodeType& type, bool head);

}  // namespace ray::cluster
