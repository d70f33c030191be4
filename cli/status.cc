// `ray status`: the cluster's nodes and resources.

#include <cstdio>
#include <ctime>

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

// What the autoscaler reported: its workers, the waiting work, what it decided.
void PrintAutoscaler(const nlohmann::json& a) {
  std::printf("Autoscaler (%s, %s provider, workers %d..%d): %s\n",
              a.value("cluster_name", "").c_str(), a.value("provider", "").c_str(),
              a.value("min_workers", 0), a.value("max_workers", 0),
              a.value("alive", false) ? "running" : "NOT REPORTING (see logs/monitor.err)");
  nlohmann::json types = a.value("node_types", nlohmann::json::object());
  for (const auto& [name, t] : types.items()) {
    std::printf(" type %-16s %s, workers %d..%d\n", name.c_str(),
                t.value("resources", nlohmann::json::object()).dump().c_str(),
                t.value("min_workers", 0), t.value("max_workers", 0));
  }
  for (const auto& w : a.value("workers", nlohmann::json::array())) {
    auto tags = w.value("tags", nlohmann::json::object());
    std::string state = w.value("setup_failed", false) ? "SETUP FAILED"
                        : w.value("updating", false)   ? "setting up"
                        : w.value("ray_running", false) ? "ray running"
                                                        : "launching";
    std::printf(" %-12s %-15s %-16s %-14s %s\n", w.value("id", "").c_str(),
                w.value("ip", "").c_str(), tags.value("ray-user-node-type", "").c_str(),
                tags.value("ray-node-status", "").c_str(), state.c_str());
  }
  std::printf(" Waiting work: %d item(s)\n", a.value("demand", 0));
  for (const auto& shape : a.value("infeasible", nlohmann::json::array())) {
    std::printf(" Infeasible (no node type fits): %s\n", shape.dump().c_str());
  }
  std::printf(" Last decision: %s\n", a.value("summary", "").c_str());
  if (a.value("launch_failures", 0) > 0) {
    std::printf(" Failed launches: %d\n", a.value("launch_failures", 0));
  }
  if (!a.value("last_error", "").empty()) {
    std::printf(" Last error: %s\n", a.value("last_error", "").c_str());
  }
}

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
  // The autoscaler's view, if the cluster has one (a head started by `ray up`).
  nlohmann::json autoscaler;
  if (auto a = gcs.GetAutoscaler(); a.ok() && !a->second.empty()) {
    autoscaler = nlohmann::json::parse(a->second, nullptr, false);
    if (autoscaler.is_object()) autoscaler["alive"] = a->first;
  }
  // Starts of the GCS on this cluster's tables: restarts by its supervisor, and heads
  // started again on the same temp dir.
  auto starts = gcs.GetStarts();
  // The dashboard's URL as it last reported it ("" without one).
  auto webui = gcs.Call("get_webui_url", "");
  std::string dashboard = webui.ok() ? *webui : "";
  if (o.json) {
    nlohmann::json j = {{"address", target->gcs_address.substr(6)}, {"nodes", nlohmann::json::array()},
                        {"total", total.ToDoubles()}, {"available", available.ToDoubles()}};
    if (starts.ok()) {
      j["gcs"] = {{"starts", starts->starts},
                  {"restarts", starts->restarts()},
                  {"last_start_ms", starts->last_start_ms}};
    }
    if (autoscaler.is_object()) j["autoscaler"] = autoscaler;
    j["dashboard_url"] = dashboard;
    for (const auto& n : *nodes) {
      j["nodes"].push_back({{"node_id", NodeId::FromBinary(n.node_id).Hex()},
                            {"address", n.address}, {"state", n.state},
                            {"total", n.total}, {"available", n.available}});
    }
    std::printf("%s\n", j.dump(2).c_str());
    return;
  }
  std::printf("======== Cluster status: %s ========\n", target->gcs_address.substr(6).c_str());
  if (starts.ok() && starts->restarts() > 0) {
    std::time_t t = starts->last_start_ms / 1000;
    char when[64];
    std::strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", std::localtime(&t));
    std::printf("GCS: restarted %lld time%s, last at %s\n",
                static_cast<long long>(starts->restarts()), starts->restarts() == 1 ? "" : "s",
                when);
  }
  if (!dashboard.empty()) std::printf("Dashboard: %s\n", dashboard.c_str());
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
  if (autoscaler.is_object()) PrintAutoscaler(autoscaler);
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
