#pragma once
// Brings one node up to date: Ray's NodeUpdater. Numbered steps, each printed as it
// starts, with a deadline:
//
//   [1/6] Waiting for SSH      `uptime` every 2 s until it answers (ssh_timeout_s)
//   [2/6] Shipping ray         the cluster token, and the ray runtime unless the
//                              hosts bring their own (ship_ray: false)
//   [3/6] File mounts          file_mounts, rsync'ed
//   [4/6] Initialization commands
//   [5/6] Setup commands
//   [6/6] Starting ray         the start commands
//
// Steps 3-5 are skipped when the node already carries this runtime hash (nothing of
// its files or commands changed), and with `restart_only`; step 6 with `no_restart`.
// The node's `ray-node-status` tag follows: waiting-for-ssh, syncing-files,
// setting-up, then up-to-date (with `ray-runtime-config` set to the hash) or
// update-failed. A failing command stops the update with the node, the command,
// its exit code and its last output.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/cluster/command_runner.h"
#include "runtime/cluster/node_provider.h"

namespace ray::cluster {

struct UpdateOptions {
  std::string label;  // "head 10.0.0.1": prefixes every line printed
  std::vector<std::string> initialization_commands;
  std::vector<std::string> setup_commands;
  std::vector<std::string> start_commands;
  std::map<std::string, std::string> file_mounts;  // remote -> local
  // Copied in step 2: local file or directory -> remote path (the runtime, the token).
  std::vector<std::pair<std::string, std::string>> ship;
  std::string after_ship;  // run once those are there ("": nothing)
  std::string runtime_hash;
  bool restart_only = false;
  bool no_restart = false;
  int ssh_timeout_s = 300;      // Ray's NODE_START_WAIT_S
  int command_timeout_s = 3600;  // one setup or start command
  int copy_timeout_s = 600;      // one rsync
};

// Runs the steps on `node` through `runner`, printing to `print`; updates the node's
// tags in `provider`. Returns the first failure.
Status UpdateNode(NodeProvider& provider, const ProviderNode& node, CommandRunner& runner,
                  const UpdateOptions& options, const LineFn& print);

}  // namespace ray::cluster
