#pragma once
// The cluster's resource use over time, for the overview page's chart: a ring of
// samples, each the sum over ALIVE nodes of total and used (total - available) per
// resource, and each ALIVE node's own use. The dashboard adds one sample per second from the GCS's node table.
// Thread-safe: one sampler thread adds while request threads read.

#include <cstdint>
#include <deque>
#include <mutex>

#include <nlohmann/json.hpp>

namespace ray::dashboard {

class UtilisationHistory {
 public:
  explicit UtilisationHistory(size_t capacity = 600) : capacity_(capacity) {}

  // `nodes`: rows as gcs::NodeRowsJson gives them. The oldest sample goes when full.
  void Add(int64_t time_ms, const nlohmann::json& nodes);
  // [{"time_ms", "total": {res: n}, "used": {res: n}, "nodes": {node_id: {res: used}}}],
  // oldest first.
  nlohmann::json ToJson() const;

 private:
  size_t capacity_;
  mutable std::mutex mu_;
  std::deque<nlohmann::json> samples_;
};

}  // namespace ray::dashboard
