// `ray run job.so [args...]`: runs a job on a cluster of its own, then tears it down.

#include <csignal>
#include <cstdio>

#include "cli/commands.h"
#include "cli/common.h"
#include "runtime/node/driver.h"
#include "runtime/node/node.h"

namespace ray::cli {

namespace {

struct RunOptions {
  JobFlags job;
  ResourceFlags resources;
  size_t object_store_memory = 0;
  std::string temp_dir = "/tmp/ray";
};

// The embedded node's daemons, stopped on Ctrl-C (async-signal-safe: kill only).
volatile pid_t g_daemons[2] = {0, 0};

void OnInterrupt(int sig) {
  for (pid_t pid : g_daemons) {
    if (pid > 0) ::kill(pid, SIGTERM);
  }
  ::_exit(128 + sig);
}

void Run(const RunOptions& o) {
  auto resources = o.resources.Resolve();
  if (!resources.ok()) Fail("run", resources.status());
  node::NodeOptions n;
  n.temp_dir = o.temp_dir;
  n.port = 0;
  n.resources = *resources;
  n.object_store_memory = o.object_store_memory;
  n.die_with_parent = true;
  auto node = node::StartHead(n);
  if (!node.ok()) Fail("run", node.status());
  g_daemons[0] = node->raylet_pid;
  g_daemons[1] = node->gcs_pid;
  std::signal(SIGINT, OnInterrupt);
  std::signal(SIGTERM, OnInterrupt);

  node::JobOptions job{o.job.plugin, o.job.args, node->gcs_address, node->token,
                       node->raylet_socket};
  auto code = node::RunJob(job);
  Status stopped = node::StopNode(*node);
  if (!code.ok()) Fail("run", code.status());
  if (!stopped.ok()) Fail("run", stopped);
  if (*code != 0) throw Exit{*code};
}

}  // namespace

void AddRun(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  auto* cmd = app.add_subcommand("run", "Run a job plugin on a local cluster started for it");
  o->resources.Add(cmd);
  cmd->add_option("--object-store-memory", o->object_store_memory,
                  "bytes of shared memory for objects");
  cmd->add_option("--temp-dir", o->temp_dir, "root of session dirs (default /tmp/ray)");
  o->job.Add(cmd, [o] { Run(*o); });
}

}  // namespace ray::cli
