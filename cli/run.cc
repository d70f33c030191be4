// `ray run job.so [args...]`: runs a job on a cluster of its own, then tears it down.

#include "cli/commands.h"
#include "cli/common.h"

namespace ray::cli {

namespace {

struct RunOptions {
  JobFlags job;
  LocalClusterFlags cluster;
};

void Run(const RunOptions& o) { RunOnLocalCluster("run", o.cluster, o.job); }

}  // namespace

void AddRun(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "Run a job plugin on a local cluster started for it");
  o->cluster.Add(cmd);
  o->job.Add(cmd, [o] { Run(*o); });
}

}  // namespace ray::cli
