#include "runtime/dashboard/task_summary.h"

#include <algorithm>
#include <map>

#include "runtime/base/hex.h"

namespace ray::dashboard {

using nlohmann::json;

json SummarizeTasks(const json& rows, const TaskQuery& query) {
  json counts = json::object(), durations = json::array(), matches = json::array();
  int64_t lo = 0, hi = 0;
  for (const auto& r : rows) {
    std::string state = r.value("state", "");
    counts[state] = counts.value(state, 0) + 1;
    if (r.value("end_ms", int64_t{0}) > 0) {
      int64_t d = r.value("duration_ms", int64_t{0});
      lo = durations.empty() ? d : std::min(lo, d);
      hi = durations.empty() ? d : std::max(hi, d);
      durations.push_back(d);
    }
    if (!query.id.empty() && r.value("task_id", "").rfind(query.id, 0) == 0) {
      matches.push_back(r);
    }
  }
  json histogram = json::array();
  if (!durations.empty()) {
    size_t bins = hi == lo ? 1 : std::max<size_t>(query.bins, 1);
    double width = hi == lo ? 1.0 : static_cast<double>(hi - lo) / bins;
    std::vector<int64_t> count(bins, 0);
    for (const auto& d : durations) {
      size_t b = static_cast<size_t>((d.get<int64_t>() - lo) / width);
      ++count[std::min(b, bins - 1)];
    }
    for (size_t b = 0; b < bins; ++b) {
      histogram.push_back({{"lo_ms", lo + b * width},
                           {"hi_ms", hi == lo ? static_cast<double>(hi) : lo + (b + 1) * width},
                           {"count", count[b]}});
    }
  }
  size_t first = rows.size() > query.max_rows ? rows.size() - query.max_rows : 0;
  json latest = json::array();
  for (size_t i = first; i < rows.size(); ++i) latest.push_back(rows[i]);
  json out = {{"total", rows.size()}, {"counts", counts}, {"durations_ms", durations},
              {"histogram", histogram}, {"tasks", latest}};
  if (!query.id.empty()) out["matches"] = matches;
  return out;
}

void AddActorRestarts(nlohmann::json& actors, const std::vector<gcs::TaskEvent>& events) {
  std::map<std::string, int64_t> runs;  // creation task id (binary) -> ended runs
  for (const auto& e : events) {
    if (e.state == gcs::kTaskFinished || e.state == gcs::kTaskFailed) ++runs[e.task_id];
  }
  for (auto& a : actors) {
    auto id = FromHex(a.value("actor_id", ""));
    auto it = id ? runs.find(*id) : runs.end();
    a["restarts"] = it == runs.end() ? 0 : std::max<int64_t>(0, it->second - 1);
  }
}

}  // namespace ray::dashboard
