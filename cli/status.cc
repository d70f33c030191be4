// `ray status`: the cluster's nodes and resources.

#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/common.h"
#include "runtime/gcs/gcs_client.h"
#include "runtime/ids/ids.h"
#include "runtime/scheduler/resources.h"

namespace ray::cli {

namespace {

struct StatusOptions {
  ClusterFlags cluster;
  bool json = false;
};

void Run(const StatusOptions& o) {
  auto target = ResolveCluster(o.cluster);
  if (!target.ok()) Fail("status", target.status());
  gcs::GcsClient gcs(target->gcs_address, target->token);
  auto nodes = gcs.GetNodes();
  if (!nodes.ok()) Fail("status", nodes.status());

  scheduler::ResourceSet total, available;
  int alive = 0;
  for (const auto& n : *nodes) {
    if (n.state != "ALIVE") continue;
    ++alive;
    total.Add(scheduler::ResourceSet::FromDoubles(n.total));
    available.Add(scheduler::ResourceSet::FromDoubles(n.available));
  }
  if (o.json) {
    nlohmann::json j = {{"address", target->gcs_address.substr(6)}, {"nodes", nlohmann::json::array()},
                        {"total", total.ToDoubles()}, {"available", available.ToDoubles()}};
    for (const auto& n : *nodes) {
      j["nodes"].push_back({{"node_id", NodeId::FromBinary(n.node_id).Hex()},
                            {"address", n.address}, {"state", n.state},
                            {"total", n.total}, {"available", n.available}});
    }
    std::printf("%s\n", j.dump(2).c_str());
    return;
  }
  std::printf("======== Cluster status: %s ========\n", target->gcs_address.substr(6).c_str());
  std::printf("Nodes: %d alive, %zu dead\n", alive, nodes->size() - alive);
  for (const auto& n : *nodes) {
    std::printf(" %s  %-15s %s\n", NodeId::FromBinary(n.node_id).Hex().c_str(), n.address.c_str(),
                n.state.c_str());
  }
  std::printf("Resources (used/total):\n");
  auto totals = total.ToDoubles();
  auto avail = available.ToDoubles();
  for (const auto& [name, amount] : totals) {
    double used = amount - (avail.count(name) ? avail[name] : 0.0);
    std::printf(" %s/%s %s\n", fmt::format("{:g}", used).c_str(),
                fmt::format("{:g}", amount).c_str(), name.c_str());
  }
}

}  // namespace

void AddStatus(CLI::App& app) {
  auto o = std::make_shared<StatusOptions>();
  auto* cmd = app.add_subcommand("status", "Show the cluster's nodes and resources");
  o->cluster.Add(cmd);
  cmd->add_flag("--json", o->json, "print JSON");
  cmd->callback([o] { Run(*o); });
}

}  // namespace ray::cli
