#include "runtime/cluster/launcher.h"

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <chrono>
#include <future>
#include <thread>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runtime/base/util.h"
#include "runtime/cluster/cluster_config.h"
#include "runtime/cluster/command_runner.h"
#include "runtime/cluster/node_provider.h"
#include "runtime/cluster/node_setup.h"
#include "runtime/cluster/node_updater.h"

namespace ray::cluster {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr int kStopTimeoutS = 60;
constexpr int kCommandNotFound = 127;  // bash's exit code
constexpr int kDownDeadlineS = 120;
constexpr int kExecTimeoutS = 7 * 24 * 3600;  // a user's command: bounded, generously
// Where the head finds what `ray up` gives its autoscaler.
constexpr const char* kBootstrapConfig = "~/ray_bootstrap_config.yaml";
constexpr const char* kBootstrapKey = "~/ray_bootstrap_key.pem";
constexpr const char* kBootstrapProvider = "~/ray_bootstrap_provider.so";

// A cluster as the launcher sees it.
struct Cluster {
  ClusterConfig config;
  std::string state_dir;
  std::unique_ptr<NodeProvider> provider;
  std::string token_file;
};

Result<Cluster> Open(const LaunchTarget& target, std::optional<int> min_workers = {},
                     std::optional<int> max_workers = {}) {
  Cluster c;
  RAY_ASSIGN_OR_RETURN(c.config, LoadClusterConfig(target.config_file));
  RAY_RETURN_IF_ERROR(ApplyOverrides(c.config, target.cluster_name, min_workers, max_workers));
  c.state_dir = DefaultStateDir();
  std::error_code ec;
  fs::create_directories(c.state_dir, ec);
  fs::permissions(c.state_dir, fs::perms::owner_all, ec);
  RAY_ASSIGN_OR_RETURN(c.provider, MakeNodeProvider(c.config, {c.state_dir, "", ""}));
  c.token_file = c.state_dir + "/" + c.config.cluster_name + ".token";
  return c;
}

// The cluster's token: made once, then kept.
Status EnsureToken(const Cluster& c) {
  if (fs::exists(c.token_file)) return Status::Ok();
  return WriteFile(c.token_file, ToHex(RandomBytes(16)), 0600);
}

Result<std::optional<ProviderNode>> FindHead(Cluster& c) {
  RAY_ASSIGN_OR_RETURN(auto heads, c.provider->NonTerminatedNodes({{kTagNodeKind, kKindHead}}));
  if (heads.empty()) return std::optional<ProviderNode>();
  return std::optional<ProviderNode>(heads.front());
}

Result<ProviderNode> RequireHead(Cluster& c) {
  RAY_ASSIGN_OR_RETURN(auto head, FindHead(c));
  // A local cluster's head is its head_ip, whichever machine ran `ray up`.
  if (!head && c.config.provider_type == "local") {
    head = ProviderNode{c.config.head_ip, c.config.head_ip, {}, ""};
  }
  if (!head) {
    return Status::FailedPrecondition(fmt::format(
        "cluster '{}' has no head node: start it with `ray up {}`", c.config.cluster_name,
        c.config.cluster_name));
  }
  return *head;
}

std::unique_ptr<CommandRunner> Runner(const Cluster& c, const ProviderNode& node,
                                      const std::string& head_ip) {
  return RunnerFor(c.config, node, head_ip, c.state_dir);
}

// `ray stop` on a node; Ok if it ran (or there is no ray there).
Status StopRay(const Cluster& c, const ProviderNode& node, const std::string& head_ip) {
  auto runner = Runner(c, node, head_ip);
  RAY_ASSIGN_OR_RETURN(CommandResult r, runner->Run("ray stop", kStopTimeoutS));
  if (r.exit_code == kCommandNotFound) return Status::Ok();  // no ray there: nothing runs
  if (r.exit_code != 0) {
    return Status::Internal(fmt::format("`ray stop` on {} exited with {}: {}", runner->Describe(),
                                        r.exit_code, r.tail));
  }
  return Status::Ok();
}

// The config the head's autoscaler reads (~/ray_bootstrap_config.yaml): this one,
// with paths as they are on the head.
Result<std::string> WriteBootstrapConfig(const Cluster& c) {
  json j = c.config.json;
  j["_bootstrap"] = true;
  if (!c.config.ssh_private_key.empty()) j["auth"]["ssh_private_key"] = kBootstrapKey;
  for (auto& [remote, local] : j["file_mounts"].items()) local = remote;
  if (c.config.provider_type == "fake_multinode") j["_state_dir"] = c.state_dir;
  if (c.config.provider_type == "external") j["provider"]["module"] = kBootstrapProvider;
  std::string path = c.state_dir + "/" + c.config.cluster_name + ".bootstrap.json";
  RAY_RETURN_IF_ERROR(WriteFile(path, j.dump(2), 0600));
  return path;
}

void PrintUsefulCommands(const Cluster& c, const std::string& file, const ProviderNode& head,
                         const Console& console) {
  console.print(fmt::format("Head node up to date, IP address is: {}", head.ip));
  console.print("Useful commands:");
  console.print(fmt::format("  Run a job on it:        ray submit {} job.so [args]", file));
  console.print(fmt::format("  Run a command there:    ray exec {} 'ray status'", file));
  console.print(fmt::format("  Open a shell there:     ray attach {}", file));
  console.print(fmt::format("  Watch the autoscaler:   ray monitor {}", file));
  console.print(fmt::format("  Tear it down:           ray down {}", file));
  if (c.config.provider_type != "fake_multinode") {
    console.print(fmt::format("  Ssh there:              ssh {}{}@{}",
                              c.config.ssh_private_key.empty() ? "" : "-i " + c.config.ssh_private_key + " ",
                              c.config.ssh_user, head.ip));
  }
}

// Runs argv attached to this terminal; returns its exit code.
Result<int> RunAttached(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) return Status::ResourceExhausted("fork failed");
  if (pid == 0) {
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string Wrap(const ExecOptions& o, std::string command) {
  if (o.tmux) return "tmux new -d bash -c " + ShellQuote(command + "; exec bash");
  if (o.screen) return "screen -L -dm bash -c " + ShellQuote(command + "; exec bash");
  return command;
}

}  // namespace

Status Up(const UpOptions& o, const Console& console) {
  if (o.no_restart && o.restart_only) {
    return Status::InvalidArgument("--no-restart and --restart-only exclude each other");
  }
  RAY_ASSIGN_OR_RETURN(Cluster c, Open(o.target, o.min_workers, o.max_workers));
  console.print("Cluster configuration valid");
  console.print(fmt::format("Cluster: {} ({} provider; workers {}..{})", c.config.cluster_name,
                            c.config.provider_type, c.config.min_workers, c.config.max_workers));
  RAY_RETURN_IF_ERROR(EnsureToken(c));
  const NodeType& head_type = c.config.HeadType();
  RAY_ASSIGN_OR_RETURN(auto head, FindHead(c));
  if (head && head->tags[kTagLaunchConfig] != LaunchHash(c.config, head_type)) {
    if (!console.confirm("Head node config out-of-date. It will be terminated. Go on?")) {
      return Status::Cancelled("cancelled");
    }
    if (Status st = StopRay(c, *head, head->ip); !st.ok()) console.print(st.message());
    RAY_RETURN_IF_ERROR(c.provider->TerminateNodes({head->id}));
    head.reset();
  }
  if (!head) {
    if (!console.confirm("No head node found. Launching a new cluster.")) {
      return Status::Cancelled("cancelled");
    }
    RAY_ASSIGN_OR_RETURN(auto ids, c.provider->CreateNodes(head_type, NewNodeTags(c.config, head_type, true), 1));
    if (ids.empty()) return Status::Unavailable("the provider made no head node");
    RAY_ASSIGN_OR_RETURN(head, FindHead(c));
    if (!head) return Status::Internal("the new head node " + ids.front() + " is not listed");
    console.print(fmt::format("Launched a new head node: {}", head->ip));
  } else if (!console.confirm(o.no_restart ? "This will update the cluster's setup; ray keeps running."
                                           : "This will restart ray on the cluster.")) {
    return Status::Cancelled("cancelled");
  }

  std::string runtime;
  bool ship = c.config.ship_ray && c.config.provider_type != "fake_multinode";
  if (ship) {
    RAY_ASSIGN_OR_RETURN(runtime, RuntimeStagingDir(c.state_dir));
  }
  UpdateOptions u = HeadUpdate(c.config, runtime, c.token_file);
  RAY_ASSIGN_OR_RETURN(std::string bootstrap, WriteBootstrapConfig(c));
  u.ship.push_back({bootstrap, kBootstrapConfig});
  if (!c.config.ssh_private_key.empty()) u.ship.push_back({c.config.ssh_private_key, kBootstrapKey});
  if (c.config.provider_type == "external") {
    u.ship.push_back({c.config.provider.value("module", ""), kBootstrapProvider});
  }
  u.label = "head " + head->ip;
  u.no_restart = o.no_restart;
  u.restart_only = o.restart_only;
  auto runner = Runner(c, *head, head->ip);
  Status st = UpdateNode(*c.provider, *head, *runner, u, console.print);
  if (!st.ok()) return Status(st.code(), "failed to set up the head node: " + st.message());
  PrintUsefulCommands(c, o.target.config_file, *head, console);
  return Status::Ok();
}

Status UpAsItIs(const LaunchTarget& target, const Console& console) {
  UpOptions up;
  up.target = target;
  return Up(up, console);
}

Status Down(const DownOptions& o, const Console& console) {
  RAY_ASSIGN_OR_RETURN(Cluster c, Open(o.target));
  if (!console.confirm(o.workers_only ? "This will destroy the cluster's workers."
                                      : "This will destroy your cluster.")) {
    return Status::Cancelled("cancelled");
  }
  std::vector<std::string> failed;
  RAY_ASSIGN_OR_RETURN(auto heads, c.provider->NonTerminatedNodes({{kTagNodeKind, kKindHead}}));
  bool local = c.config.provider_type == "local";
  // A local head is stopped even if no state says it runs (state may be lost).
  if (local && heads.empty()) heads.push_back({c.config.head_ip, c.config.head_ip, {}, ""});
  std::string head_ip = heads.empty() ? "" : heads.front().ip;
  if (!o.workers_only) {
    // The head first: its autoscaler then launches nothing more.
    for (const auto& h : heads) {
      console.print(fmt::format("Stopping ray on the head {}", h.ip));
      if (Status st = StopRay(c, h, head_ip); !st.ok()) failed.push_back(st.message());
    }
  }
  // The head's provider knows the workers its autoscaler made: it takes them down.
  bool on_head = std::getenv("RAY_LAUNCHER_ON_HEAD") != nullptr;
  if (!on_head && c.provider->UsesNodeUpdaters()) {
    for (const auto& h : heads) {
      console.print(fmt::format("Taking down the workers the head {} knows of", h.ip));
      auto r = Runner(c, h, head_ip)->Run(
          "RAY_LAUNCHER_ON_HEAD=1 ray down -y --workers-only ~/ray_bootstrap_config.yaml",
          kDownDeadlineS, [&](const std::string& line) { console.print("  " + line); });
      if (!r.ok() || (r->exit_code != 0 && r->exit_code != kCommandNotFound)) {
        failed.push_back(fmt::format("taking the workers down from the head {} failed: {}", h.ip,
                                     r.ok() ? r->tail : r.status().message()));
      }
    }
  }
  int64_t deadline = MonoMillis() + kDownDeadlineS * 1000;
  while (true) {
    RAY_ASSIGN_OR_RETURN(auto workers, c.provider->NonTerminatedNodes({{kTagNodeKind, kKindWorker}}));
    if (local) {
      // Every listed host: the head's autoscaler may have claimed any of them.
      workers.clear();
      for (const auto& ip : c.config.worker_ips) workers.push_back({ip, ip, {}, ""});
    }
    if (workers.empty()) break;
    console.print(fmt::format("Stopping ray on {} worker node(s)", workers.size()));
    std::vector<std::future<Status>> stops;
    if (c.provider->UsesNodeUpdaters()) {
      for (const auto& w : workers) {
        stops.push_back(std::async(std::launch::async, [&c, w, head_ip] {
          return StopRay(c, w, head_ip);
        }));
      }
    }
    for (auto& s : stops) {
      if (Status st = s.get(); !st.ok()) failed.push_back(st.message());
    }
    std::vector<std::string> ids;
    for (const auto& w : workers) ids.push_back(w.id);
    if (Status st = c.provider->TerminateNodes(ids); !st.ok()) failed.push_back(st.message());
    if (local) break;
    std::this_thread::sleep_for(std::chrono::seconds(1));  // as Ray: look again after a second
    if (MonoMillis() > deadline) {
      failed.push_back(fmt::format("{} worker node(s) still listed after {} s", workers.size(),
                                   kDownDeadlineS));
      break;
    }
  }
  if (!o.workers_only) {
    std::vector<std::string> ids;
    for (const auto& h : heads) ids.push_back(h.id);
    if (!ids.empty()) {
      if (Status st = c.provider->TerminateNodes(ids); !st.ok()) failed.push_back(st.message());
    }
  }
  if (!failed.empty()) {
    std::string all;
    for (const auto& f : failed) all += "\n  " + f;
    return Status::Unavailable("some nodes could not be stopped:" + all);
  }
  console.print(o.workers_only ? "The workers are down." : "The cluster is down.");
  return Status::Ok();
}

Result<int> Exec(const ExecOptions& o, const Console& console) {
  if (o.start) RAY_RETURN_IF_ERROR(UpAsItIs(o.target, console));
  RAY_ASSIGN_OR_RETURN(Cluster c, Open(o.target));
  RAY_ASSIGN_OR_RETURN(ProviderNode head, RequireHead(c));
  auto runner = Runner(c, head, head.ip);
  std::string command = Wrap(o, o.command);
  int code = 0;
  if (o.attached || !o.ports.empty()) {
    RAY_ASSIGN_OR_RETURN(code, RunAttached(runner->InteractiveArgv(command, o.ports)));
  } else {
    RAY_ASSIGN_OR_RETURN(CommandResult r, runner->Run(command, kExecTimeoutS, console.print));
    code = r.exit_code;
  }
  if (o.tmux) console.print(fmt::format("Use `ray attach {} --tmux` to check on it", o.target.config_file));
  if (o.stop) RAY_RETURN_IF_ERROR(Down({o.target, /*workers_only=*/false}, console));
  return code;
}

Result<int> Submit(const ExecOptions& o, const std::string& plugin,
                   const std::vector<std::string>& args, const Console& console) {
  if (o.start) RAY_RETURN_IF_ERROR(UpAsItIs(o.target, console));
  if (!fs::is_regular_file(plugin)) return Status::InvalidArgument("no plugin file " + plugin);
  RAY_ASSIGN_OR_RETURN(Cluster c, Open(o.target));
  RAY_ASSIGN_OR_RETURN(ProviderNode head, RequireHead(c));
  std::string remote = "~/" + fs::path(plugin).filename().string();
  RAY_RETURN_IF_ERROR(Runner(c, head, head.ip)->RsyncUp(plugin, remote, 600));
  ExecOptions e = o;
  e.start = false;
  e.command = "ray submit ~/" + ShellQuote(fs::path(plugin).filename().string());
  for (const auto& a : args) e.command += " " + ShellQuote(a);
  return Exec(e, console);
}

Result<std::vector<std::string>> AttachArgv(const LaunchTarget& target, bool tmux, bool screen,
                                            bool new_session, const std::vector<int>& ports) {
  RAY_ASSIGN_OR_RETURN(Cluster c, Open(target));
  RAY_ASSIGN_OR_RETURN(ProviderNode head, RequireHead(c));
  std::string command = "exec \"${SHELL:-bash}\" -l";
  if (tmux) command = new_session ? "tmux new" : "tmux attach || tmux new";
  if (screen) command = new_session ? "screen -L" : "screen -L -xRR";
  return Runner(c, head, head.ip)->InteractiveArgv(command, ports);
}

Result<DashboardForward> DashboardForwardOf(const LaunchTarget& target, int local_port,
                                            int remote_port) {
  RAY_ASSIGN_OR_RETURN(Cluster c, Open(target));
  RAY_ASSIGN_OR_RETURN(ProviderNode head, RequireHead(c));
  auto token = ReadFile(c.token_file);
  if (!token.ok() || token->empty()) {
    return Status::FailedPrecondition(fmt::format(
        "no token for cluster '{}' in {}: was it started from here with `ray up {}`?",
        c.config.cluster_name, c.token_file, target.config_file));
  }
  auto runner = Runner(c, head, head.ip);
  return DashboardForward{runner->ForwardArgv(local_port, remote_port), runner->Describe(),
                          *token};
}

namespace {

Status Rsync(const LaunchTarget& target, const std::string& source, const std::string& dest,
             bool up, const Console& console) {
  if (source.empty() != dest.empty()) {
    return Status::InvalidArgument("give both SOURCE and TARGET, or neither (the file mounts)");
  }
  RAY_ASSIGN_OR_RETURN(Cluster c, Open(target));
  RAY_ASSIGN_OR_RETURN(ProviderNode head, RequireHead(c));
  auto runner = Runner(c, head, head.ip);
  std::vector<std::pair<std::string, std::string>> pairs;  // local, remote
  if (source.empty()) {
    for (const auto& [remote, local] : c.config.file_mounts) pairs.push_back({local, remote});
  } else {
    pairs.push_back(up ? std::pair{source, dest} : std::pair{dest, source});
  }
  for (const auto& [local, remote] : pairs) {
    console.print(up ? fmt::format("{} -> {}:{}", local, runner->Describe(), remote)
                     : fmt::format("{}:{} -> {}", runner->Describe(), remote, local));
    RAY_RETURN_IF_ERROR(up ? runner->RsyncUp(local, remote, 3600)
                           : runner->RsyncDown(remote, local, 3600));
  }
  return Status::Ok();
}

}  // namespace

Status RsyncUp(const LaunchTarget& target, const std::string& source, const std::string& dest,
               const Console& console) {
  return Rsync(target, source, dest, true, console);
}

Status RsyncDown(const LaunchTarget& target, const std::string& source, const std::string& dest,
                 const Console& console) {
  return Rsync(target, source, dest, false, console);
}

Result<std::string> HeadIp(const LaunchTarget& target) {
  RAY_ASSIGN_OR_RETURN(Cluster c, Open(target));
  RAY_ASSIGN_OR_RETURN(ProviderNode head, RequireHead(c));
  return head.ip;
}

Result<std::vector<std::string>> WorkerIps(const LaunchTarget& target) {
  RAY_ASSIGN_OR_RETURN(Cluster c, Open(target));
  std::vector<std::string> ips;
  if (c.config.provider_type != "local") {
    RAY_ASSIGN_OR_RETURN(auto workers, c.provider->NonTerminatedNodes({{kTagNodeKind, kKindWorker}}));
    for (const auto& w : workers) ips.push_back(w.ip);
    return ips;
  }
  // The head's autoscaler claims the hosts: its state file says which.
  RAY_ASSIGN_OR_RETURN(ProviderNode head, RequireHead(c));
  std::string copy = c.state_dir + "/" + c.config.cluster_name + "-local.head.json";
  std::error_code ec;
  fs::remove(copy, ec);
  if (!Runner(c, head, head.ip)->RsyncDown(LocalStatePath("~/.ray/clusters", c.config.cluster_name),
                                            copy, 60).ok()) {
    return ips;  // no state there: its autoscaler has claimed no host yet
  }
  try {
    auto text = ReadFile(copy);
    json state = json::parse(text.ok() ? *text : "{}");
    json nodes = state.value("nodes", json::object());
    for (const auto& [ip, e] : nodes.items()) {
      if (e.value("state", "") == "running" &&
          e["tags"].value(kTagNodeKind, "") == std::string(kKindWorker)) {
        ips.push_back(ip);
      }
    }
  } catch (const std::exception& e) {
    return Status::DataLoss("the head's cluster state is not JSON: " + std::string(e.what()));
  }
  return ips;
}

}  // namespace ray::cluster
