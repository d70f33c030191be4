// `ray list tasks|actors|objects|nodes|placement-groups`: the cluster's state, as Ray's state API
// lists it, read from the GCS.
//   tasks    every task a worker ran or runs, from the task events raylets send
//            (latest state per task: RUNNING, FINISHED or FAILED)
//   actors   every actor created, ALIVE or DEAD, with its node and namespace
//   objects  the object directory: objects in nodes' shared-memory stores (100 KiB
//            and up) and, on multi-node clusters, small objects too; with their
//            nodes and sizes. Objects leave it when their job ends.
//   nodes    every node, ALIVE or DEAD, with its resources
//   placement-groups  every placement group (REMOVED ones too): strategy, state,
//            bundles and the node holding each

#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/common.h"
#include "runtime/base/util.h"
#include "runtime/gcs/gcs_client.h"
#include "runtime/gcs/state_views.h"

namespace ray::cli {

namespace {

using nlohmann::json;

struct ListOptions {
  ClusterFlags cluster;
  std::string what;  // tasks, actors, objects, nodes, placement-groups
  bool json = false;
  uint64_t limit = 10000;  // tasks: the last N task events; objects: the first N
};

std::string Short(const std::string& hex) { return hex.substr(0, 16); }

std::string Resources(const std::map<std::string, double>& r) {
  std::string out;
  for (const auto& [k, v] : r) out += fmt::format("{}{}: {:g}", out.empty() ? "" : ", ", k, v);
  return out;
}

void Print(const json& rows, bool as_json, const std::vector<std::string>& columns,
           const std::vector<int>& widths) {
  if (as_json) {
    std::printf("%s\n", rows.dump(2).c_str());
    return;
  }
  auto cell = [](const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); };
  std::string header;
  for (size_t i = 0; i < columns.size(); ++i) header += fmt::format("{:<{}} ", columns[i], widths[i]);
  std::printf("%s\n", header.c_str());
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < columns.size(); ++i) {
      line += fmt::format("{:<{}} ", cell(row[columns[i]]), widths[i]);
    }
    std::printf("%s\n", line.c_str());
  }
  std::printf("(%zu)\n", rows.size());
}

void Run(const ListOptions& o) {
  auto target = ResolveCluster(o.cluster);
  if (!target.ok()) Fail("list", target.status());
  gcs::GcsClient gcs(target->gcs_address, target->token);
  json rows = json::array();
  if (o.what == "tasks") {
    auto events = gcs.GetTaskEvents("", o.limit);
    if (!events.ok()) Fail("list", events.status());
    for (const auto& t : gcs::MergeTaskEvents(*events)) {
      rows.push_back({{"task_id", t.task_id}, {"job_id", t.job_id}, {"name", t.name},
                      {"state", t.state}, {"node_id", t.node_id}, {"worker_pid", t.worker},
                      {"start_ms", t.start_ms}, {"end_ms", t.end_ms},
                      {"duration_ms", t.end_ms > 0 ? t.end_ms - t.start_ms : 0}});
    }
    if (!o.json) {
      for (auto& r : rows) {
        r["task_id"] = Short(r["task_id"].get<std::string>());
        r["node_id"] = Short(r["node_id"].get<std::string>());
      }
    }
    Print(rows, o.json, {"task_id", "name", "state", "node_id", "worker_pid", "duration_ms"},
          {16, 28, 9, 16, 10, 11});
  } else if (o.what == "actors") {
    auto actors = gcs.GetActors();
    if (!actors.ok()) Fail("list", actors.status());
    for (const auto& a : gcs::ActorRows(*actors)) {
      rows.push_back({{"actor_id", a.actor_id}, {"name", a.name}, {"state", a.state},
                      {"node_id", a.node_id}, {"job_id", a.job_id},
                      {"ray_namespace", a.ray_namespace}});
    }
    if (!o.json) {
      for (auto& r : rows) r["node_id"] = Short(r["node_id"].get<std::string>());
    }
    Print(rows, o.json, {"actor_id", "name", "state", "node_id", "job_id", "ray_namespace"},
          {32, 16, 6, 16, 8, 16});
  } else if (o.what == "objects") {
    auto objects = gcs.GetObjects(o.limit);
    if (!objects.ok()) Fail("list", objects.status());
    for (const auto& obj : *objects) {
      json nodes = json::array();
      for (const auto& n : obj.node_ids) nodes.push_back(o.json ? ToHex(n) : Short(ToHex(n)));
      rows.push_back({{"object_id", ToHex(obj.object_id)}, {"size", obj.size}, {"nodes", nodes}});
    }
    Print(rows, o.json, {"object_id", "size", "nodes"}, {40, 12, 16});
  } else if (o.what == "placement-groups") {
    auto body = gcs.Call("get_placement_groups", "");
    if (!body.ok()) Fail("list", body.status());
    auto groups =
        protocol::DecodeBody<std::vector<gcs::PlacementGroupRecord>>(*body, "placement groups");
    if (!groups.ok()) Fail("list", groups.status());
    for (const auto& pg : *groups) {
      json bundles = json::array(), nodes = json::array();
      for (size_t i = 0; i < pg.bundles.size(); ++i) {
        bundles.push_back(o.json ? json(pg.bundles[i]) : json(Resources(pg.bundles[i])));
        bool held = i < pg.reserved.size() && pg.reserved[i] && !pg.bundle_nodes[i].empty();
        std::string node = held ? ToHex(pg.bundle_nodes[i]) : "";
        nodes.push_back(o.json ? node : Short(node));
      }
      rows.push_back({{"placement_group_id", pg.pg_id}, {"name", pg.name},
                      {"strategy", pg.strategy}, {"state", pg.state}, {"bundles", bundles},
                      {"bundle_node_ids", nodes}, {"job_id", ToHex(pg.job_id)},
                      {"detail", pg.detail}});
    }
    if (!o.json) {
      for (auto& r : rows) r["bundles"] = r["bundles"].size();
    }
    Print(rows, o.json, {"placement_group_id", "name", "strategy", "state", "bundles"},
          {36, 16, 13, 12, 7});
  } else {
    auto nodes = gcs.GetNodes();
    if (!nodes.ok()) Fail("list", nodes.status());
    for (const auto& n : *nodes) {
      rows.push_back({{"node_id", ToHex(n.node_id)}, {"address", n.address}, {"state", n.state},
                      {"resources_total", o.json ? json(n.total) : json(Resources(n.total))},
                      {"resources_available",
                       o.json ? json(n.available) : json(Resources(n.available))}});
    }
    Print(rows, o.json, {"node_id", "address", "state", "resources_total"}, {32, 15, 6, 30});
  }
}

}  // namespace

void AddList(CLI::App& app) {
  auto o = std::make_shared<ListOptions>();
  auto* cmd = app.add_subcommand(
      "list", "List the cluster's tasks, actors, objects, nodes or placement groups");
  cmd->add_option("what", o->what, "tasks, actors, objects, nodes or placement-groups")
      ->required()
      ->check(CLI::IsMember({"tasks", "actors", "objects", "nodes", "placement-groups"}));
  o->cluster.Add(cmd);
  cmd->add_flag("--json", o->json, "print JSON (full ids)");
  cmd->add_option("--limit", o->limit,
                  "tasks: read the last N task events; objects: at most N (0: all; default "
                  "10000)");
  cmd->callback([o] { Run(*o); });
}

}  // namespace ray::cli
