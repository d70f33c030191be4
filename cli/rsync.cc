// `ray rsync-up` / `ray rsync-down CLUSTER.yaml [SOURCE TARGET]`: files to or from
// a cluster's head node (both paths or neither: the file mounts).

#include "cli/cluster_common.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace ray::cli {

namespace {

struct RsyncFlags {
  cluster::LaunchTarget target;
  std::string source;
  std::string dest;
};

void AddOne(CLI::App& app, bool up) {
  auto f = std::make_shared<RsyncFlags>();
  auto* cmd = app.add_subcommand(up ? "rsync-up" : "rsync-down",
                                 up ? "Copy files to the cluster's head node"
                                    : "Copy files from the cluster's head node");
  cmd->alias(up ? "rsync_up" : "rsync_down");
  AddLaunchTarget(cmd, f->target);
  cmd->add_option("source", f->source, up ? "local path" : "path on the head");
  cmd->add_option("target", f->dest, up ? "path on the head" : "local path");
  cmd->callback([f, up] {
    auto console = MakeConsole(true);
    Status st = up ? cluster::RsyncUp(f->target, f->source, f->dest, console)
                   : cluster::RsyncDown(f->target, f->source, f->dest, console);
    if (!st.ok()) Fail(up ? "rsync-up" : "rsync-down", st);
  });
}

}  // namespace

void AddRsync(CLI::App& app) {
  AddOne(app, true);
  AddOne(app, false);
}

}  // namespace ray::cli
