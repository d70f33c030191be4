#include "cli/common.h"

#include <csignal>
#include <cstdlib>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "runtime/api/runtime_env.h"
#include "runtime/base/fs.h"
#include "runtime/base/util.h"
#include "runtime/base/yaml.h"
#include "runtime/node/driver.h"
#include "runtime/node/node.h"

namespace ray::cli {

void ResourceFlags::Add(CLI::App* cmd) {
  cmd->add_option("--num-cpus", num_cpus, "CPUs on this node (default: detected)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--num-gpus", num_gpus, "GPUs on this node (default: 0)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--resources", resources_json,
                  "custom resources as JSON, e.g. '{\"Custom\": 2}'");
}

Result<std::map<std::string, double>> ResourceFlags::Resolve() const {
  std::map<std::string, double> out;
  if (!resources_json.empty()) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(resources_json);
    } catch (const std::exception& e) {
      return Status::InvalidArgument("--resources is not valid JSON: " + std::string(e.what()));
    }
    if (!j.is_object()) {
      return Status::InvalidArgument("--resources must be a JSON object like '{\"Custom\": 2}'");
    }
    for (auto& [name, value] : j.items()) {
      if (!value.is_number() || value.get<double>() < 0) {
        return Status::InvalidArgument("--resources: '" + name +
                                       "' must map to a non-negative number");
      }
      if (name == "CPU" || name == "GPU") {
        return Status::InvalidArgument("--resources: use --num-cpus / --num-gpus for " + name);
      }
      out[name] = value.get<double>();
    }
  }
  out["CPU"] = num_cpus ? *num_cpus : node::DetectCpus();
  if (num_gpus && *num_gpus > 0) out["GPU"] = *num_gpus;
  return out;
}

void JobFlags::Add(CLI::App* cmd, std::function<void()> run) {
  cmd->add_option("--namespace", ray_namespace,
                  "the namespace the job's named actors live in (default: an anonymous one "
                  "of the job's own)");
  auto* file = cmd->add_option("--runtime-env", runtime_env_file,
                               "the job's runtime environment, a YAML or JSON file (keys: "
                               "env_vars, working_dir, plugins)");
  cmd->add_option("--runtime-env-json", runtime_env_json,
                  "the job's runtime environment as inline JSON")
      ->excludes(file);
  cmd->add_option("plugin", plugin,
                  "the job: a plugin .so with RAY_MAIN; arguments after it go to the job")
      ->required();
  cmd->prefix_command();
  cmd->callback([this, cmd, run] {
    args = cmd->remaining();
    run();
  });
}

Result<node::JobOptions> JobFlags::Resolve() const {
  node::JobOptions o;
  o.plugin_path = plugin;
  o.args = args;
  o.ray_namespace = ray_namespace;
  o.runtime_env = runtime_env_json;
  if (!runtime_env_file.empty()) {
    // (YAML reads JSON too.)
    RAY_ASSIGN_OR_RETURN(nlohmann::json env, LoadYamlFile(runtime_env_file));
    o.runtime_env = env.dump();
  }
  // Checked here, so that a bad one is refused before any cluster starts.
  auto parsed = core::ParseRuntimeEnv(
      o.runtime_env, runtime_env_file.empty() ? "--runtime-env-json"
                                              : "--runtime-env " + runtime_env_file);
  if (!parsed.ok()) return parsed.status();
  return o;
}

void Fail(const std::string& command, const Status& status, int code) {
  std::fprintf(stderr, "ray %s: %s\n", command.c_str(), status.message().c_str());
  throw Exit{code};
}

}  // namespace ray::cli

namespace ray::cli {

void ClusterFlags::Add(CLI::App* cmd, bool address_required) {
  auto* a = cmd->add_option("--address", address, "the cluster's GCS address, HOST:PORT");
  if (address_required) a->required();
  cmd->add_option("--token", token, "the cluster token (default: read from the local session)");
  cmd->add_option("--temp-dir", temp_dir, "root of session dirs (default $RAY_TMPDIR, else /tmp/ray)");
}

Result<std::string> TokenFromEnvironment() {
  const char* file = std::getenv("RAY_CLUSTER_TOKEN_FILE");
  if (file == nullptr || *file == '\0') return std::string();
  auto token = ReadFile(file);
  if (!token.ok()) {
    return Status::InvalidArgument(std::string("RAY_CLUSTER_TOKEN_FILE: cannot read ") + file + ": " +
                                   token.status().message());
  }
  std::string t = *token;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  return t;
}

Result<ClusterTarget> ResolveCluster(const ClusterFlags& flags) {
  std::string token = flags.token;
  if (token.empty()) {
    RAY_ASSIGN_OR_RETURN(token, TokenFromEnvironment());
  }
  auto target = node::ResolveCluster(flags.address, token, flags.temp_dir);
  if (target.ok()) return target;
  switch (target.status().code()) {  // say which flag gives what is missing
    case StatusCode::kPermissionDenied:
      return Status::PermissionDenied(target.status().message() + " (--token)");
    case StatusCode::kNotFound:
      return Status::NotFound(target.status().message() + " (--address)");
    default:
      return target.status();
  }
}

void DriveOnCluster(const std::string& command, const ClusterFlags& flags, const std::string& plugin,
                    const node::DriveFn& drive,
                    const std::function<void(const node::JobOptions&)>& resolved) {
  auto target = ResolveCluster(flags);
  if (!target.ok()) Fail(command, target.status());
  node::JobOptions job;
  job.plugin_path = plugin;
  job.gcs_address = target->gcs_address;
  job.token = target->token;
  job.raylet_socket = target->raylet_socket;
  if (resolved) resolved(job);
  auto code = node::RunDriver(job, drive);
  if (!code.ok()) Fail(command, code.status());
  if (*code != 0) throw Exit{*code};
}

}  // namespace ray::cli

namespace ray::cli {

void LocalClusterFlags::Add(CLI::App* cmd) {
  resources.Add(cmd);
  cmd->add_option("--object-store-memory", object_store_memory,
                  "bytes of shared memory for objects (default: 30% of RAM, at most 20 GB)");
  cmd->add_option("--temp-dir", temp_dir, "root of session dirs (default $RAY_TMPDIR, else /tmp/ray)");
}

namespace {
// The embedded node's daemons, stopped on Ctrl-C (async-signal-safe: kill only).
volatile pid_t g_daemons[2] = {0, 0};

void OnInterrupt(int sig) {
  for (pid_t pid : g_daemons) {
    if (pid > 0) ::kill(pid, SIGTERM);
  }
  ::_exit(128 + sig);
}

// Starts the node, runs `job` against it, stops the node; exits like the job.
void OnLocalCluster(const std::string& command, const LocalClusterFlags& flags,
                    const std::function<Result<int>(const node::JobOptions&)>& job) {
  auto resources = flags.resources.Resolve();
  if (!resources.ok()) Fail(command, resources.status());
  node::NodeOptions n;
  n.temp_dir = flags.temp_dir;
  n.port = 0;
  n.resources = *resources;
  n.object_store_memory = flags.object_store_memory;
  n.die_with_parent = true;
  auto node = node::StartHead(n);
  if (!node.ok()) Fail(command, node.status());
  g_daemons[0] = node->raylet_pid;
  g_daemons[1] = node->gcs_pid;
  std::signal(SIGINT, OnInterrupt);
  std::signal(SIGTERM, OnInterrupt);
  node::JobOptions options;
  options.gcs_address = node->gcs_address;
  options.token = node->token;
  options.raylet_socket = node->raylet_socket;
  auto code = job(options);
  Status stopped = node::StopNode(*node);
  if (!code.ok()) Fail(command, code.status());
  if (!stopped.ok()) Fail(command, stopped);
  if (*code != 0) throw Exit{*code};
}

}  // namespace

void RunOnLocalCluster(const std::string& command, const LocalClusterFlags& flags,
                       const std::string& plugin, const std::vector<std::string>& args) {
  OnLocalCluster(command, flags, [&](node::JobOptions o) {
    o.plugin_path = plugin;
    o.args = args;
    return node::RunJob(o);
  });
}

void RunOnLocalCluster(const std::string& command, const LocalClusterFlags& flags,
                       const JobFlags& job) {
  auto resolved = job.Resolve();
  if (!resolved.ok()) Fail(command, resolved.status());
  OnLocalCluster(command, flags, [&](node::JobOptions o) {
    resolved->gcs_address = o.gcs_address;
    resolved->token = o.token;
    resolved->raylet_socket = o.raylet_socket;
    return node::RunJob(*resolved);
  });
}

void DriveOnLocalCluster(const std::string& command, const LocalClusterFlags& flags,
                         const std::string& plugin, const node::DriveFn& drive,
                         const std::function<void(const node::JobOptions&)>& started) {
  OnLocalCluster(command, flags, [&](node::JobOptions o) {
    o.plugin_path = plugin;
    if (started) started(o);
    return node::RunDriver(o, drive);
  });
}

Result<std::string> FindBundledPlugin(const std::string& build_subdir, const std::string& name) {
  namespace fs = std::filesystem;
  fs::path exe_dir = fs::path(SelfExecutable()).parent_path();
  std::string file = name + ".so";
  for (const fs::path& p : {exe_dir / ".." / build_subdir / file, exe_dir / "../lib/ray" / file,
                            exe_dir / "../lib64/ray" / file}) {
    if (fs::exists(p)) return fs::canonical(p).string();
  }
  return Status::NotFound(file + " not found beside " + exe_dir.string() +
                          " (build the '" + name + "' target, or install ray)");
}

}  // namespace ray::cli
