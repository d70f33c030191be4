// `ray down CLUSTER.yaml`: tears a cluster down.

#include "cli/cluster_common.h"
#include "cli/commands.h"
#include "cli/common.h"

namespace ray::cli {

void AddDown(CLI::App& app) {
  struct Flags {
    cluster::DownOptions options;
    bool yes = false;
  };
  auto f = std::make_shared<Flags>();
  auto* cmd = app.add_subcommand("down", "Tear down a ray cluster: stop ray on every node, release them");
  AddLaunchTarget(cmd, f->options.target);
  cmd->add_flag("-y,--yes", f->yes, "do not ask for confirmation");
  cmd->add_flag("--workers-only", f->options.workers_only, "only the workers");
  cmd->callback([f] {
    Status st = cluster::Down(f->options, MakeConsole(f->yes));
    if (!st.ok()) Fail("down", st);
  });
}

}  // namespace ray::cli
