#pragma once
// Helpers shared by subcommands: resource flags and error reporting.

#include <map>
#include <optional>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "runtime/base/status.h"
#include "runtime/node/driver.h"
#include "runtime/node/node.h"

namespace ray::cli {

// --num-cpus, --num-gpus, --resources (JSON), as `ray start` and `ray run` take them.
struct ResourceFlags {
  std::optional<double> num_cpus;
  std::optional<double> num_gpus;
  std::string resources_json;
  void Add(CLI::App* cmd);
  // The node's resource totals; InvalidArgument names the bad flag.
  Result<std::map<std::string, double>> Resolve() const;
};

// The job of `ray run` / `ray submit`: a plugin path, then its arguments, passed to
// RAY_MAIN untouched (flags included), and the job's config flags before the plugin
// (--namespace). `run` is called once parsed.
struct JobFlags {
  std::string plugin;
  std::vector<std::string> args;
  std::string ray_namespace;
  std::string runtime_env_file;  // --runtime-env FILE.yaml|json
  std::string runtime_env_json;  // --runtime-env-json '{...}'
  void Add(CLI::App* cmd, std::function<void()> run);
  // The job's options (the cluster's address left empty); InvalidArgument names the
  // bad flag.
  Result<node::JobOptions> Resolve() const;
};

// Prints "ray <command>: <message>" to stderr and throws Exit{code}.
[[noreturn]] void Fail(const std::string& command, const Status& status, int code = 1);

}  // namespace ray::cli

namespace ray::cli {

// Where a command finds the cluster: an explicit --address (host:port of the GCS)
// with --token, or else a running node under --temp-dir (the newest), whose token
// file is readable by this user. Without --token, the token is read from the file
// $RAY_CLUSTER_TOKEN_FILE names (which keeps it out of `ps`), else from the local
// session of that address.
struct ClusterFlags {
  std::string address;
  std::string token;
  std::string temp_dir = node::DefaultTempDir();
  void Add(CLI::App* cmd, bool address_required = false);
};

using node::ClusterTarget;

Result<ClusterTarget> ResolveCluster(const ClusterFlags& flags);

// The token in the file $RAY_CLUSTER_TOKEN_FILE names ("" when the variable is
// unset); InvalidArgument names the variable and the file when it cannot be read.
Result<std::string> TokenFromEnvironment();

// Runs `drive` as the driver of a job for `plugin` on the running cluster `flags`
// find, and exits with its code: Fail()s or throws Exit unless 0. `resolved` (if
// given) learns the cluster's address and token first.
void DriveOnCluster(const std::string& command, const ClusterFlags& flags, const std::string& plugin,
                    const node::DriveFn& drive,
                    const std::function<void(const node::JobOptions&)>& resolved = nullptr);

}  // namespace ray::cli

namespace ray::cli {

// A cluster started for one job (`ray run`, `ray microbenchmark`, `rllib train`): the
// node's resources and where its session goes.
struct LocalClusterFlags {
  ResourceFlags resources;
  size_t object_store_memory = 0;
  std::string temp_dir = node::DefaultTempDir();
  void Add(CLI::App* cmd);
};

// Starts a local cluster, runs `plugin` with `args` as its job, stops the cluster
// (also on Ctrl-C), and exits with the job's code: Fail()s or throws Exit unless 0.
void RunOnLocalCluster(const std::string& command, const LocalClusterFlags& flags,
                       const std::string& plugin, const std::vector<std::string>& args);
// The same for the job `ray run` was given, with its config.
void RunOnLocalCluster(const std::string& command, const LocalClusterFlags& flags,
                       const JobFlags& job);
// The same, with `drive` as the driver instead of the plugin's RAY_MAIN; `started`
// (if given) learns the cluster's address and token first.
void DriveOnLocalCluster(const std::string& command, const LocalClusterFlags& flags,
                         const std::string& plugin, const node::DriveFn& drive,
                         const std::function<void(const node::JobOptions&)>& started = nullptr);

// A plugin shipped with ray (`name`.so): in the build tree at <build>/<build_subdir>,
// or installed in <prefix>/lib/ray.
Result<std::string> FindBundledPlugin(const std::string& build_subdir, const std::string& name);

}  // namespace ray::cli
