#include "runtime/cluster/node_updater.h"

#include <fmt/format.h>

#include "runtime/base/util.h"

namespace ray::cluster {

namespace {

constexpr int kSteps = 6;

class Updater {
 public:
  Updater(NodeProvider& provider, const ProviderNode& node, CommandRunner& runner,
          const UpdateOptions& o, const LineFn& print)
      : provider_(provider), node_(node), runner_(runner), o_(o), print_(print) {}

  Status Run() {
    Status st = Steps();
    if (!st.ok()) {
      (void)provider_.SetNodeTags(node_.id, {{kTagNodeStatus, kStatusUpdateFailed}});
      return Status(st.code(), fmt::format("{}: {}", o_.label, st.message()));
    }
    Tags done = {{kTagNodeStatus, kStatusUpToDate}};
    if (!o_.restart_only) done[kTagRuntimeConfig] = o_.runtime_hash;  // its setup is this
    RAY_RETURN_IF_ERROR(provider_.SetNodeTags(node_.id, done));
    Print(fmt::format("up to date ({:.1f} s)", (MonoMillis() - start_ms_) / 1000.0));
    return Status::Ok();
  }

 private:
  Status Steps() {
    RAY_RETURN_IF_ERROR(SetStatus(kStatusWaitingForSsh));
    Step(1, "Waiting for SSH");
    RAY_RETURN_IF_ERROR(WaitForSsh());

    RAY_RETURN_IF_ERROR(SetStatus(kStatusSyncingFiles));
    Step(2, "Shipping ray and the cluster token");
    for (const auto& [local, remote] : o_.ship) {
      RAY_RETURN_IF_ERROR(runner_.RsyncUp(local, remote, o_.copy_timeout_s));
    }
    if (!o_.after_ship.empty()) RAY_RETURN_IF_ERROR(Commands({o_.after_ship}));
    auto current = node_.tags.find(kTagRuntimeConfig);
    bool up_to_date = current != node_.tags.end() && current->second == o_.runtime_hash;
    if (o_.restart_only || up_to_date) {
      Print(o_.restart_only ? "[3-5/6] Skipped: --restart-only"
                            : "[3-5/6] Configuration already up to date; skipping file mounts, "
                              "initialization and setup commands");
    } else {
      Step(3, "Processing file mounts");
      for (const auto& [remote, local] : o_.file_mounts) {
        Print(fmt::format("  {} from {}", remote, local));
        RAY_RETURN_IF_ERROR(runner_.RsyncUp(local, remote, o_.copy_timeout_s));
      }
      RAY_RETURN_IF_ERROR(SetStatus(kStatusSettingUp));
      Step(4, "Running initialization commands");
      RAY_RETURN_IF_ERROR(Commands(o_.initialization_commands));
      Step(5, "Running setup commands");
      RAY_RETURN_IF_ERROR(Commands(o_.setup_commands));
    }
    if (o_.no_restart) {
      Print("[6/6] Skipped: --no-restart (ray keeps running as it is)");
      return Status::Ok();
    }
    Step(6, "Starting ray");
    return Commands(o_.start_commands);
  }

  Status WaitForSsh() {
    int64_t deadline = MonoMillis() + int64_t{o_.ssh_timeout_s} * 1000;
    int64_t started = MonoMillis();
    std::string last;
    while (true) {
      auto r = runner_.Run("uptime", 15);
      if (r.ok() && r->exit_code == 0) return Status::Ok();
      last = r.ok() ? r->tail : r.status().message();
      while (!last.empty() && last.back() == '\n') last.pop_back();
      int64_t now = MonoMillis();
      if (now >= deadline) {
        return Status::DeadlineExceeded(fmt::format(
            "SSH to {} still not available after {} s: {}", runner_.Describe(),
            o_.ssh_timeout_s, last));
      }
      Print(fmt::format("  SSH to {} not available yet ({}/{} s): {}; retrying in 2 s",
                        runner_.Describe(), (now - started) / 1000, o_.ssh_timeout_s, last));
      ::usleep(2000 * 1000);
    }
  }

  Status Commands(const std::vector<std::string>& commands) {
    int i = 0;
    for (const auto& cmd : commands) {
      Print(fmt::format("  ({}/{}) {}", ++i, commands.size(), cmd));
      auto r = runner_.Run(cmd, o_.command_timeout_s,
                           [&](const std::string& line) { Print("    " + line); });
      if (!r.ok()) return r.status();
      if (r->exit_code != 0) {
        return Status::Internal(fmt::format("command failed on {} with exit code {}: {}\n{}",
                                            runner_.Describe(), r->exit_code, cmd, r->tail));
      }
    }
    return Status::Ok();
  }

  Status SetStatus(const char* status) {
    return provider_.SetNodeTags(node_.id, {{kTagNodeStatus, status}});
  }
  void Step(int n, const std::string& what) { Print(fmt::format("[{}/{}] {}", n, kSteps, what)); }
  void Print(const std::string& line) { print_(fmt::format("{}: {}", o_.label, line)); }

  NodeProvider& provider_;
  const ProviderNode& node_;
  CommandRunner& runner_;
  const UpdateOptions& o_;
  const LineFn& print_;
  int64_t start_ms_ = MonoMillis();
};

}  // namespace

Status UpdateNode(NodeProvider& provider, const ProviderNode& node, CommandRunner& runner,
                  const UpdateOptions& options, const LineFn& print) {
  return Updater(provider, node, runner, options, print).Run();
}

}  // namespace ray::cluster
