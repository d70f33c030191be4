// `ray dashboard CLUSTER.yaml`: the dashboard of a launched cluster's head, forwarded
// over ssh to a port on this machine's loopback, until Ctrl-C.

#include <atomic>
#include <csignal>

#include "cli/cluster_common.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace ray::cli {

namespace {

std::atomic<bool> g_interrupted{false};

struct DashboardFlags {
  cluster::LaunchTarget target;
  int port = 8265;         // here
  int remote_port = 8265;  // the dashboard's on the head
};

void Run(const DashboardFlags& f) {
  std::signal(SIGINT, [](int) { g_interrupted = true; });
  std::signal(SIGTERM, [](int) { g_interrupted = true; });
  Status st = cluster::ForwardDashboard(f.target, f.port, f.remote_port, MakeConsole(true),
                                        g_interrupted);
  if (!st.ok()) Fail("dashboard", st);
}

}  // namespace

void AddDashboard(CLI::App& app) {
  auto f = std::make_shared<DashboardFlags>();
  auto* cmd = app.add_subcommand(
      "dashboard", "Forward a launched cluster's dashboard to a local port (until Ctrl-C)");
  AddLaunchTarget(cmd, f->target);
  cmd->add_option("-p,--port", f->port, "the local port (default 8265)")
      ->check(CLI::Range(1, 65535));
  cmd->add_option("--remote-port", f->remote_port, "the dashboard's port on the head (default 8265)")
      ->check(CLI::Range(1, 65535));
  cmd->callback([f] { Run(*f); });
}

}  // namespace ray::cli
