#pragma once
// Flags and terminal plumbing shared by the cluster launcher's commands (`ray up`,
// `down`, `exec`, `attach`, `submit CFG`, `rsync-up/down`, `get-head-ip`, ...).

#include <string>

#include <CLI/CLI.hpp>

#include "runtime/cluster/launcher.h"

namespace ray::cli {

// CLUSTER_CONFIG_FILE and -n/--cluster-name.
void AddLaunchTarget(CLI::App* cmd, cluster::LaunchTarget& target);

// Prints to stdout; confirms with `yes`, else by asking on the terminal, else
// (no terminal: CI, a pipe) refuses, telling the user to pass -y.
cluster::Console MakeConsole(bool yes);

// Repeatable -p/--port-forward PORT.
void AddPortForward(CLI::App* cmd, std::vector<int>& ports);

}  // namespace ray::cli
