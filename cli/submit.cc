// `ray submit --address HOST:PORT job.so [args...]`: runs a job on a running cluster.
// `ray submit CLUSTER.yaml job.so [args...]`: on a launched cluster's head (the
// plugin is copied there first).

#include "cli/cluster_common.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "runtime/node/driver.h"

namespace ray::cli {

namespace {

struct SubmitOptions {
  ClusterFlags cluster;
  JobFlags job;
  cluster::ExecOptions launched;  // the YAML form
};

bool IsClusterYaml(const std::string& path) {
  auto ends = [&](const std::string& s) {
    return path.size() > s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0;
  };
  return ends(".yaml") || ends(".yml");
}

void RunOnLaunchedCluster(SubmitOptions o) {
  if (o.job.args.empty()) {
    Fail("submit", Status::InvalidArgument("usage: ray submit CLUSTER.yaml job.so [args...]"));
  }
  o.launched.target.config_file = o.job.plugin;
  std::string plugin = o.job.args.front();
  std::vector<std::string> args(o.job.args.begin() + 1, o.job.args.end());
  auto code = cluster::Submit(o.launched, plugin, args, MakeConsole(true));
  if (!code.ok()) Fail("submit", code.status());
  if (*code != 0) throw Exit{*code};
}

void Run(const SubmitOptions& o) {
  if (IsClusterYaml(o.job.plugin)) return RunOnLaunchedCluster(o);
  auto target = ResolveCluster(o.cluster);
  if (!target.ok()) Fail("submit", target.status());
  auto job = o.job.Resolve();
  if (!job.ok()) Fail("submit", job.status());
  job->gcs_address = target->gcs_address;
  job->token = target->token;
  job->raylet_socket = target->raylet_socket;
  auto code = node::RunJob(*job);
  if (!code.ok()) Fail("submit", code.status());
  if (*code != 0) throw Exit{*code};
}

}  // namespace

void AddSubmit(CLI::App& app) {
  auto o = std::make_shared<SubmitOptions>();
  auto* cmd = app.add_subcommand(
      "submit", "Run a job plugin on a running cluster (--address), or on a launched one (CLUSTER.yaml)");
  o->cluster.Add(cmd);
  cmd->add_option("-n,--cluster-name", o->launched.target.cluster_name,
                  "CLUSTER.yaml form: override the configured cluster name");
  cmd->add_flag("--start", o->launched.start, "CLUSTER.yaml form: ray up -y first");
  cmd->add_flag("--stop", o->launched.stop, "CLUSTER.yaml form: ray down -y after");
  cmd->add_flag("--tmux", o->launched.tmux, "CLUSTER.yaml form: run in a detached tmux session");
  cmd->add_flag("--screen", o->launched.screen, "CLUSTER.yaml form: run in a detached screen");
  o->job.Add(cmd, [o] { Run(*o); });
}

}  // namespace ray::cli
