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
#include "runtime/gcs/state_json.h"

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

std::string Resources(const json& r) {
  std::string out;
  for (const auto& [k, v] : r.items()) {
    out += fmt::format("{}{}: {:g}", out.empty() ? "" : ", ", k, v.get<double>());
  }
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
  auto shorten = [&](json& rows, const char* key) {
    if (o.json) return;
    for (auto& r : rows) r[key] = Short(r[key].get<std::string>());
  };
  if (o.what == "tasks") {
    auto rows = gcs::TaskRowsJson(gcs, o.limit);
    if (!rows.ok()) Fail("list", rows.status());
    shorten(*rows, "task_id");
    shorten(*rows, "node_id");
    Print(*rows, o.json, {"task_id", "name", "state", "node_id", "worker_pid", "duration_ms"},
          {16, 28, 9, 16, 10, 11});
  } else if (o.what == "actors") {
    auto rows = gcs::ActorRowsJson(gcs);
    if (!rows.ok()) Fail("list", rows.status());
    shorten(*rows, "node_id");
    Print(*rows, o.json, {"actor_id", "name", "state", "node_id", "job_id", "ray_namespace"},
          {32, 16, 6, 16, 8, 16});
  } else if (o.what == "objects") {
    auto rows = gcs::ObjectRowsJson(gcs, o.limit);
    if (!rows.ok()) Fail("list", rows.status());
    if (!o.json) {
      for (auto& r : *rows) {
        for (auto& n : r["nodes"]) n = Short(n.get<std::string>());
      }
    }
    Print(*rows, o.json, {"object_id", "size", "nodes"}, {40, 12, 16});
  } else if (o.what == "placement-groups") {
    auto rows = gcs::PlacementGroupRowsJson(gcs);
    if (!rows.ok()) Fail("list", rows.status());
    if (!o.json) {
      for (auto& r : *rows) r["bundles"] = r["bundles"].size();
    }
    Print(*rows, o.json, {"placement_group_id", "name", "strategy", "state", "bundles"},
          {36, 16, 13, 12, 7});
  } else {
    auto rows = gcs::NodeRowsJson(gcs);
    if (!rows.ok()) Fail("list", rows.status());
    if (!o.json) {
      for (auto& r : *rows) {
        r["resources_total"] = Resources(r["resources_total"]);
        r["resources_available"] = Resources(r["resources_available"]);
      }
    }
    Print(*rows, o.json, {"node_id", "address", "state", "resources_total"}, {32, 15, 6, 30});
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
