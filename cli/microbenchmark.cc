// `ray microbenchmark`: Ray's microbenchmark set on a local cluster started for it.

#include <cstdlib>
#include <filesystem>
#include <optional>

#include "cli/commands.h"
#include "cli/common.h"
#include "runtime/base/util.h"
#include "runtime/transport/floor.h"

namespace ray::cli {

namespace {

struct BenchOptions {
  bool quick = false;              // one warm-up call, 3 x 1 s (default: Ray's timing)
  std::optional<double> duration;  // seconds per measurement (Ray: 2, quick: 1)
  std::optional<int> repeat;       // measurements per metric (Ray: 4, quick: 3)
  bool json = false;
  std::string filter;
  std::string skip;
  LocalClusterFlags cluster;
};

void Run(const BenchOptions& o) {
  auto plugin = FindBundledPlugin("plugins/bench", "microbenchmark");
  if (!plugin.ok()) Fail("microbenchmark", plugin.status());
  // The floor first, on an idle machine: raw ZeroMQ between this process and a peer.
  char dir[] = "/tmp/ray-floor-XXXXXX";
  if (!::mkdtemp(dir)) Fail("microbenchmark", Status::Internal("cannot create a socket dir"));
  auto floor = transport::MeasureFloor({SelfExecutable(), "_floor_peer"},
                                       std::string("ipc://") + dir + "/floor", o.duration.value_or(1.0));
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (!floor.ok()) Fail("microbenchmark", floor.status());
  std::vector<std::string> args = {"--floor-roundtrips", std::to_string(floor->roundtrips_per_s),
                                   "--floor-messages", std::to_string(floor->messages_per_s)};
  if (o.quick) args.push_back("--quick");
  if (o.duration) args.insert(args.end(), {"--duration", std::to_string(*o.duration)});
  if (o.repeat) args.insert(args.end(), {"--repeat", std::to_string(*o.repeat)});
  if (o.json) args.push_back("--json");
  if (!o.filter.empty()) args.insert(args.end(), {"--filter", o.filter});
  if (!o.skip.empty()) args.insert(args.end(), {"--skip", o.skip});
  LocalClusterFlags cluster = o.cluster;
  // Ray's placement group metric runs on a cluster started with {"custom": 100}.
  if (cluster.resources.resources_json.empty()) cluster.resources.resources_json = R"({"custom": 100})";
  RunOnLocalCluster("microbenchmark", cluster, *plugin, args);
}

}  // namespace

void AddMicrobenchmark(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  auto* cmd = app.add_subcommand("microbenchmark",
                                 "Measure task, actor and object throughput (Ray's metric names)");
  cmd->add_flag("--quick", o->quick,
                "shorter timing: one warm-up call, then 3 x 1 s (default: Ray's, a 1 s "
                "warm-up, then 4 x 2 s)");
  cmd->add_option("--duration", o->duration, "seconds per measurement (Ray's: 2; --quick: 1)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--repeat", o->repeat, "measurements per metric (Ray's: 4; --quick: 3)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--json", o->json, "print the results as JSON");
  cmd->add_option("--filter", o->filter,
                  "only metrics whose name contains this (Ray's TESTS_TO_RUN; an error if "
                  "none does)");
  cmd->add_option("--skip", o->skip, "no metric whose name contains this (Ray's TESTS_TO_SKIP)");
  o->cluster.Add(cmd);
  cmd->callback([o] { Run(*o); });
}

}  // namespace ray::cli
