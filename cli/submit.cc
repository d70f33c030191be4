// `ray submit --address HOST:PORT job.so [args...]`: runs a job on a running cluster.

#include "cli/commands.h"
#include "cli/common.h"
#include "runtime/node/driver.h"

namespace ray::cli {

namespace {

struct SubmitOptions {
  ClusterFlags cluster;
  JobFlags job;
};

void Run(const SubmitOptions& o) {
  auto target = ResolveCluster(o.cluster);
  if (!target.ok()) Fail("submit", target.status());
  node::JobOptions job{o.job.plugin, o.job.args, target->gcs_address, target->token,
                       target->raylet_socket};
  auto code = node::RunJob(job);
  if (!code.ok()) Fail("submit", code.status());
  if (*code != 0) throw Exit{*code};
}

}  // namespace

void AddSubmit(CLI::App& app) {
  auto o = std::make_shared<SubmitOptions>();
  auto* cmd = app.add_subcommand("submit", "Run a job plugin on a running cluster");
  o->cluster.Add(cmd);
  o->job.Add(cmd, [o] { Run(*o); });
}

}  // namespace ray::cli
