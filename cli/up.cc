// `ray up CLUSTER.yaml`: creates or updates a cluster.

#include "cli/cluster_common.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace ray::cli {

namespace {

struct UpFlags {
  cluster::UpOptions options;
  bool yes = false;
  int min_workers = -1;
  int max_workers = -1;
};

void Run(UpFlags f) {
  if (f.min_workers >= 0) f.options.min_workers = f.min_workers;
  if (f.max_workers >= 0) f.options.max_workers = f.max_workers;
  Status st = cluster::Up(f.options, MakeConsole(f.yes));
  if (!st.ok()) Fail("up", st);
}

}  // namespace

void AddUp(CLI::App& app) {
  auto f = std::make_shared<UpFlags>();
  auto* cmd = app.add_subcommand("up", "Create or update a ray cluster from a cluster YAML");
  AddLaunchTarget(cmd, f->options.target);
  cmd->add_flag("-y,--yes", f->yes, "do not ask for confirmation");
  cmd->add_option("--min-workers", f->min_workers, "override the configured min worker count")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-workers", f->max_workers, "override the configured max worker count")
      ->check(CLI::NonNegativeNumber);
  auto* no_restart = cmd->add_flag("--no-restart", f->options.no_restart,
                                   "skip restarting ray (running jobs go on)");
  cmd->add_flag("--restart-only", f->options.restart_only,
                "skip the setup commands and only restart ray")
      ->excludes(no_restart);
  cmd->callback([f] { Run(*f); });
}

}  // namespace ray::cli
