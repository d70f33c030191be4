// `ray microbenchmark`: Ray's microbenchmark set on a local cluster started for it.

#include <cstdlib>
#include <filesystem>

#include "cli/commands.h"
#include "cli/common.h"
#include "runtime/base/util.h"
#include "runtime/transport/floor.h"

namespace ray::cli {

namespace {

struct BenchOptions {
  double duration = 1.0;
  int repeat = 3;
  bool json = false;
  std::string filter;
  LocalClusterFlags cluster;
};

void Run(const BenchOptions& o) {
  auto plugin = FindBundledPlugin("plugins/bench", "microbenchmark");
  if (!plugin.ok()) Fail("microbenchmark", plugin.status());
  // The floor first, on an idle machine: raw ZeroMQ between this process and a peer.
  char dir[] = "/tmp/ray-floor-XXXXXX";
  if (!::mkdtemp(dir)) Fail("microbenchmark", Status::Internal("cannot create a socket dir"));
  auto floor = transport::MeasureFloor({SelfExecutable(), "_floor_peer"}, dir, o.duration);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (!floor.ok()) Fail("microbenchmark", floor.status());
  std::vector<std::string> args = {"--duration", std::to_string(o.duration), "--repeat",
                                   std::to_string(o.repeat), "--floor-roundtrips",
                                   std::to_string(floor->roundtrips_per_s), "--floor-messages",
                                   std::to_string(floor->messages_per_s)};
  if (o.json) args.push_back("--json");
  if (!o.filter.empty()) args.insert(args.end(), {"--filter", o.filter});
  RunOnLocalCluster("microbenchmark", o.cluster, *plugin, args);
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
  o->cluster.Add(cmd);
  cmd->callback([o] { Run(*o); });
}

}  // namespace ray::cli
