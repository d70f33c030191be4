#include "runtime/gcs/state_json.h"

#include "runtime/base/util.h"
#include "runtime/gcs/state_views.h"

namespace ray::gcs {

using nlohmann::json;

Result<json> TaskRowsJson(GcsClient& gcs, uint64_t limit) {
  RAY_ASSIGN_OR_RETURN(auto events, gcs.GetTaskEvents("", limit));
  json rows = json::array();
  for (const auto& t : MergeTaskEvents(events)) {
    rows.push_back({{"task_id", t.task_id}, {"job_id", t.job_id}, {"name", t.name},
                    {"state", t.state}, {"node_id", t.node_id}, {"worker_pid", t.worker},
                    {"start_ms", t.start_ms}, {"end_ms", t.end_ms},
                    {"duration_ms", t.end_ms > 0 ? t.end_ms - t.start_ms : 0}});
  }
  return rows;
}

Result<json> ActorRowsJson(GcsClient& gcs) {
  RAY_ASSIGN_OR_RETURN(auto actors, gcs.GetActors());
  json rows = json::array();
  for (const auto& a : ActorRows(actors)) {
    rows.push_back({{"actor_id", a.actor_id}, {"name", a.name}, {"state", a.state},
                    {"node_id", a.node_id}, {"job_id", a.job_id},
                    {"ray_namespace", a.ray_namespace}});
  }
  return rows;
}

Result<json> ObjectRowsJson(GcsClient& gcs, uint64_t limit) {
  RAY_ASSIGN_OR_RETURN(auto objects, gcs.GetObjects(limit));
  json rows = json::array();
  for (const auto& obj : objects) {
    json nodes = json::array();
    for (const auto& n : obj.node_ids) nodes.push_back(ToHex(n));
    rows.push_back({{"object_id", ToHex(obj.object_id)}, {"size", obj.size}, {"nodes", nodes}});
  }
  return rows;
}

Result<json> NodeRowsJson(GcsClient& gcs) {
  RAY_ASSIGN_OR_RETURN(auto nodes, gcs.GetNodes());
  json rows = json::array();
  for (const auto& n : nodes) {
    rows.push_back({{"node_id", ToHex(n.node_id)}, {"address", n.address}, {"state", n.state},
                    {"resources_total", n.total}, {"resources_available", n.available}});
  }
  return rows;
}

Result<json> PlacementGroupRowsJson(GcsClient& gcs) {
  RAY_ASSIGN_OR_RETURN(std::string body, gcs.Call("get_placement_groups", ""));
  RAY_ASSIGN_OR_RETURN(auto groups, protocol::DecodeBody<std::vector<PlacementGroupRecord>>(
                                        body, "placement groups"));
  json rows = json::array();
  for (const auto& pg : groups) {
    json bundles = json::array(), nodes = json::array();
    for (size_t i = 0; i < pg.bundles.size(); ++i) {
      bundles.push_back(pg.bundles[i]);
      bool held = i < pg.reserved.size() && pg.reserved[i] && i < pg.bundle_nodes.size() &&
                  !pg.bundle_nodes[i].empty();
      nodes.push_back(held ? ToHex(pg.bundle_nodes[i]) : "");
    }
    rows.push_back({{"placement_group_id", pg.pg_id}, {"name", pg.name},
                    {"strategy", pg.strategy}, {"state", pg.state}, {"bundles", bundles},
                    {"bundle_node_ids", nodes}, {"job_id", ToHex(pg.job_id)},
                    {"detail", pg.detail}});
  }
  return rows;
}

Result<json> JobRowsJson(GcsClient& gcs) {
  RAY_ASSIGN_OR_RETURN(auto jobs, gcs.GetJobs());
  json rows = json::array();
  for (const auto& j : jobs) {
    std::string status = j.end_ms == 0 ? "RUNNING" : j.exit_code == 0 ? "SUCCEEDED" : "FAILED";
    rows.push_back({{"job_id", ToHex(j.job_id)}, {"pid", j.pid}, {"entry", j.entry},
                    {"start_ms", j.start_ms}, {"end_ms", j.end_ms},
                    {"exit_code", j.exit_code}, {"status", status}});
  }
  return rows;
}

}  // namespace ray::gcs
