// `ray get-head-ip`, `ray get-worker-ips`, `ray monitor`: looking at a launched
// cluster.

#include <cstdio>

#include <fmt/format.h>

#include "cli/cluster_common.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace ray::cli {

void AddClusterInfo(CLI::App& app) {
  auto head = std::make_shared<cluster::LaunchTarget>();
  auto* h = app.add_subcommand("get-head-ip", "Print a cluster's head node IP");
  h->alias("get_head_ip");
  AddLaunchTarget(h, *head);
  h->callback([head] {
    auto ip = cluster::HeadIp(*head);
    if (!ip.ok()) Fail("get-head-ip", ip.status());
    std::printf("%s\n", ip->c_str());
  });

  auto workers = std::make_shared<cluster::LaunchTarget>();
  auto* w = app.add_subcommand("get-worker-ips", "Print a cluster's worker node IPs");
  w->alias("get_worker_ips");
  AddLaunchTarget(w, *workers);
  w->callback([workers] {
    auto ips = cluster::WorkerIps(*workers);
    if (!ips.ok()) Fail("get-worker-ips", ips.status());
    for (const auto& ip : *ips) std::printf("%s\n", ip.c_str());
  });

  struct MonitorFlags {
    cluster::ExecOptions exec;
    int lines = 100;
  };
  auto m = std::make_shared<MonitorFlags>();
  auto* mon = app.add_subcommand("monitor", "Follow the autoscaler's log on the head node");
  AddLaunchTarget(mon, m->exec.target);
  mon->add_option("--lines", m->lines, "lines of history to show first (default 100)");
  mon->callback([m] {
    m->exec.command = fmt::format(
        "tail -n {} -f \"${{RAY_TMPDIR:-/tmp/ray}}\"/session_latest/logs/monitor.err", m->lines);
    auto code = cluster::Exec(m->exec, MakeConsole(true));
    if (!code.ok()) Fail("monitor", code.status());
    if (*code != 0) throw Exit{*code};
  });
}

}  // namespace ray::cli
