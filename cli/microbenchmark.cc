// `ray microbenchmark`: Ray's microbenchmark set on a local cluster started for it.

#include <unistd.h>

#include <filesystem>

#include "cli/commands.h"
#include "cli/common.h"
#include "runtime/base/util.h"
#include "runtime/node/driver.h"
#include "runtime/node/node.h"

namespace ray::cli {

namespace {

struct BenchOptions {
  double duration = 1.0;
  int repeat = 3;
  bool json = false;
  std::string filter;
  ResourceFlags resources;
  std::string temp_dir = "/tmp/ray";
};

// The benchmark plugin ships beside the binary: in the build tree, or installed.
Result<std::string> FindBenchPlugin() {
  namespace fs = std::filesystem;
  fs::path exe_dir = fs::path(SelfExecutable()).parent_path();
  for (const fs::path& p : {exe_dir / "../plugins/bench/microbenchmark.so",
                            exe_dir / "../lib/ray/microbenchmark.so",
                            exe_dir / "../lib64/ray/microbenchmark.so"}) {
    if (fs::exists(p)) return fs::canonical(p).string();
  }
  return Status::NotFound("microbenchmark.so not found beside " + exe_dir.string() +
                          " (build the 'microbenchmark' target or install ray)");
}

void Run(const BenchOptions& o) {
  auto plugin = FindBenchPlugin();
  if (!plugin.ok()) Fail("microbenchmark", plugin.status());
  auto resources = o.resources.Resolve();
  if (!resources.ok()) Fail("microbenchmark", resources.status());
  node::NodeOptions n;
  n.temp_dir = o.temp_dir;
  n.port = 0;
  n.resources = *resources;
  n.die_with_parent = true;
  auto node = node::StartHead(n);
  if (!node.ok()) Fail("microbenchmark", node.status());
  std::vector<std::string> args = {"--duration", std::to_string(o.duration), "--repeat",
                                   std::to_string(o.repeat)};
  if (o.json) args.push_back("--json");
  if (!o.filter.empty()) args.insert(args.end(), {"--filter", o.filter});
  auto code = node::RunJob({*plugin, args, node->gcs_address, node->token, node->raylet_socket});
  (void)node::StopNode(*node);
  if (!code.ok()) Fail("microbenchmark", code.status());
  if (*code != 0) throw Exit{*code};
}

}  // namespace

void AddMicrobenchmark(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  auto* cmd = app.add_subcommand("microbenchmark",
                                 "Measure task, actor and object throughput (Ray's metric names)");
  cmd->add_option("--duration", o->duration, "seconds per measurement (default 1)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--repeat", o->repeat, "measurements per metric (default 3)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--json", o->json, "print the results as JSON");
  cmd->add_option("--filter", o->filter, "only metrics whose name contains this");
  o->resources.Add(cmd);
  cmd->add_option("--temp-dir", o->temp_dir, "root of session dirs (default /tmp/ray)");
  cmd->callback([o] { Run(*o); });
}

}  // namespace ray::cli
