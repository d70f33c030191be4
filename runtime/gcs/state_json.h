#pragma once
// The state API's rows as JSON, read from the GCS: what `ray list ... --json`,
// `ray status --json` and the dashboard's /api/* endpoints print. Ids come out as
// full hex; resources as {"name": amount} objects. Each call makes one or two GCS
// requests with the given client (not thread-safe: one caller at a time).

#include <cstdint>

#include <nlohmann/json.hpp>

#include "runtime/base/status.h"
#include "runtime/gcs/gcs_client.h"

namespace ray::gcs {

// [{task_id, job_id, name, state, node_id, worker_pid, start_ms, end_ms, duration_ms}]
// from the last `limit` task events (0: all), one row per task (MergeTaskEvents).
Result<nlohmann::json> TaskRowsJson(GcsClient& gcs, uint64_t limit);
// [{actor_id, name, state, node_id, job_id, ray_namespace}]
Result<nlohmann::json> ActorRowsJson(GcsClient& gcs);
// [{object_id, size, nodes: [node_id...]}], the first `limit` (0: all).
Result<nlohmann::json> ObjectRowsJson(GcsClient& gcs, uint64_t limit);
// [{node_id, address, state, resources_total, resources_available}]
Result<nlohmann::json> NodeRowsJson(GcsClient& gcs);
// [{placement_group_id, name, strategy, state, bundles: [{res: n}], bundle_node_ids,
//   job_id, detail}]
Result<nlohmann::json> PlacementGroupRowsJson(GcsClient& gcs);
// [{job_id, pid, entry, start_ms, end_ms (0: running), exit_code, status}]
Result<nlohmann::json> JobRowsJson(GcsClient& gcs);

}  // namespace ray::gcs
