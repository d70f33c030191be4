#pragma once
// What the tasks page shows of `ray list tasks`: counts by state, a histogram of
// finished tasks' durations, the latest rows, and a lookup by id (prefix). Pure.

#include <cstddef>
#include <string>

#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/gcs/gcs_records.h"

namespace ray::dashboard {

struct TaskQuery {
  std::string id;          // a task id or its prefix (hex); "" for no lookup
  size_t max_rows = 200;   // the latest this many rows come back in "tasks"
  size_t bins = 20;        // histogram bins
};

// `rows`: gcs::TaskRowsJson's. Returns
//   {"total", "counts": {state: n}, "durations_ms": [...finished...],
//    "histogram": [{"lo_ms", "hi_ms", "count"}], "tasks": [rows], "matches": [rows]}
// "matches" is present only with a non-empty query.id. Bins split [min, max] of
// the durations evenly (one bin when all are equal, none without durations).
nlohmann::json SummarizeTasks(const nlohmann::json& rows, const TaskQuery& query);

// Sets "restarts" on each row of `actors` (ray list actors' rows, "actor_id" in hex):
// the runs of its constructor beyond the first, as the task events show them (an
// actor's creation task has the actor's id, and each run ends in one FINISHED or
// FAILED event; the GCS keeps the latest events only, so a long-lived actor's early
// restarts may no longer count).
void AddActorRestarts(nlohmann::json& actors, const std::vector<gcs::TaskEvent>& events);

}  // namespace ray::dashboard
