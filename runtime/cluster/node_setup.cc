#include "runtime/cluster/node_setup.h"

#include <cstdlib>
#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runtime/base/util.h"

#ifndef RAY_SOURCE_DIR
#define RAY_SOURCE_DIR ""
#endif

namespace ray::cluster {

namespace fs = std::filesystem;

namespace {

// Hash of a file's or a directory's contents (paths and bytes), remembered for the
// life of the process: editing a mounted file later does not make nodes outdated
// mid-run (Ray's behaviour, #3859).
std::string ContentsHash(const std::string& path) {
  static std::map<std::string, std::string> memo;
  if (auto it = memo.find(path); it != memo.end()) return it->second;
  std::string all;
  std::error_code ec;
  auto add = [&](const fs::path& p) {
    auto bytes = ReadFile(p.string());
    all += p.lexically_relative(path).string() + ":" + (bytes.ok() ? ContentHash(*bytes) : "?");
  };
  if (fs::is_directory(path, ec)) {
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(path, ec)) {
      if (e.is_regular_file()) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) add(f);
  } else {
    add(path);
  }
  return memo[path] = ContentHash(all);
}

Status Link(const fs::path& target, const fs::path& link) {
  std::error_code ec;
  fs::create_directories(link.parent_path(), ec);
  fs::create_symlink(target, link, ec);
  if (ec) return Status::Internal("cannot link " + link.string() + ": " + ec.message());
  return Status::Ok();
}

}  // namespace

std::string DefaultStateDir() { return ExpandUser("~/.ray/clusters"); }

Result<std::string> RuntimeStagingDir(const std::string& state_dir) {
  fs::path exe = SelfExecutable();
  fs::path bin = exe.parent_path();
  fs::path stage = fs::path(state_dir) / "runtime";
  std::error_code ec;
  fs::remove_all(stage, ec);
  RAY_RETURN_IF_ERROR(Link(exe, stage / "bin/ray"));
  RAY_RETURN_IF_ERROR(Link("ray", stage / "bin/rllib"));
  RAY_RETURN_IF_ERROR(Link("ray", stage / "bin/tune"));
  if (fs::exists(bin / "../lib/ray")) {  // an install: <prefix>/bin/ray
    fs::path prefix = fs::canonical(bin / "..");
    for (const char* sub : {"lib/ray", "include/ray", "lib/cmake/Ray"}) {
      if (fs::exists(prefix / sub)) RAY_RETURN_IF_ERROR(Link(prefix / sub, stage / sub));
    }
    return stage.string();
  }
  // The build tree: <build>/cli/ray, plugins beside it, headers in the sources.
  fs::path build = fs::canonical(bin / "..");
  for (const char* plugin : {"algorithms/ppo/ppo.so", "plugins/bench/microbenchmark.so"}) {
    if (fs::exists(build / plugin)) {
      RAY_RETURN_IF_ERROR(Link(build / plugin, stage / "lib/ray" / fs::path(plugin).filename()));
    }
  }
  // The SDK as an install has it: headers, and the relocatable CMake package.
  fs::path source = RAY_SOURCE_DIR;
  if (!source.empty() && fs::exists(source / "plugins/include/ray")) {
    RAY_RETURN_IF_ERROR(Link(source / "plugins/include/ray", stage / "include/ray"));
    if (fs::exists(build / "install/RayConfig.cmake")) {
      RAY_RETURN_IF_ERROR(Link(build / "install/RayConfig.cmake", stage / "lib/cmake/Ray/RayConfig.cmake"));
      RAY_RETURN_IF_ERROR(Link(source / "share/cmake/RayPlugin.cmake", stage / "lib/cmake/Ray/RayPlugin.cmake"));
    }
  }
  return stage.string();
}

std::string RuntimeHash(const ClusterConfig& config, const std::vector<std::string>& setup,
                        const std::vector<std::string>& start) {
  nlohmann::json j;
  for (const auto& [remote, local] : config.file_mounts) j["mounts"][remote] = ContentsHash(local);
  j["init"] = config.initialization_commands;
  j["setup"] = setup;
  j["start"] = start;
  return ContentHash(j.dump());
}

namespace {

UpdateOptions Common(const ClusterConfig& config, const std::string& runtime_dir,
                     const std::string& token_file) {
  UpdateOptions o;
  // Ray's knob for how long a new node may take to answer ssh.
  if (const char* wait = std::getenv("AUTOSCALER_NODE_START_WAIT_S"); wait && std::atoi(wait) > 0) {
    o.ssh_timeout_s = std::atoi(wait);
  }
  o.initialization_commands = config.initialization_commands;
  o.file_mounts = config.file_mounts;
  if (!runtime_dir.empty()) {
    o.ship.push_back({runtime_dir, std::string("~/") + kRemoteRuntimeDir});
    // `ray` on the PATH of the user's own ssh commands and shells too: ~/.ray/env,
    // sourced from the top of ~/.bashrc (which bash reads for ssh commands as well).
    o.after_ship = fmt::format(
        "echo 'export PATH=\"$HOME/{0}/bin:$PATH\"' > ~/.ray/env && "
        "{{ grep -qs '.ray/env' ~/.bashrc || {{ {{ echo '[ -f ~/.ray/env ] && . ~/.ray/env  "
        "# ray up: ray on the PATH'; cat ~/.bashrc 2>/dev/null || true; }} > ~/.bashrc.ray && "
        "mv ~/.bashrc.ray ~/.bashrc; }}; }}",
        kRemoteRuntimeDir);
  }
  o.ship.push_back({token_file, std::string("~/") + kRemoteTokenFile});
  return o;
}

}  // namespace

UpdateOptions HeadUpdate(const ClusterConfig& config, const std::string& runtime_dir,
                         const std::string& token_file) {
  UpdateOptions o = Common(config, runtime_dir, token_file);
  o.setup_commands = config.head_setup_commands;
  o.start_commands = config.head_start_ray_commands;
  o.runtime_hash = RuntimeHash(config, o.setup_commands, o.start_commands);
  return o;
}

UpdateOptions WorkerUpdate(const ClusterConfig& config, const NodeType& type,
                           const std::string& runtime_dir, const std::string& token_file) {
  UpdateOptions o = Common(config, runtime_dir, token_file);
  o.setup_commands = config.SetupCommandsOf(type);
  o.start_commands = config.worker_start_ray_commands;
  o.runtime_hash = RuntimeHash(config, o.setup_commands, o.start_commands);
  return o;
}

std::unique_ptr<CommandRunner> RunnerFor(const ClusterConfig& config, const ProviderNode& node,
                                         const std::string& head_ip,
                                         const std::string& state_dir) {
  Env env = {{"RAY_HEAD_IP", head_ip}};
  if (config.provider_type == "fake_multinode") {
    // The fake head's "host" is a directory; ray is this very binary.
    std::string path = SelfExecutable();
    path = path.substr(0, path.rfind('/'));
    const char* old = std::getenv("PATH");
    env["PATH"] = path + ":" + (old ? old : "/usr/bin:/bin");
    return MakeLocalRunner(FakeClusterDir(state_dir, config.cluster_name) + "/head", env);
  }
  return MakeSshRunner({node.ip, config.ssh_user, config.ssh_private_key, config.cluster_name},
                       env);
}

Tags NewNodeTags(const ClusterConfig& config, const NodeType& type, bool head) {
  return {{kTagNodeKind, head ? kKindHead : kKindWorker},
          {kTagUserNodeType, type.name},
          {kTagLaunchConfig, LaunchHash(config, type)},
          {kTagNodeStatus, kStatusUninitialized},
          {kTagNodeName, "ray-" + config.cluster_name + (head ? "-head" : "-worker")},
          {kTagClusterName, config.cluster_name}};
}

}  // namespace ray::cluster
