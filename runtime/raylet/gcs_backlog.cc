#include "runtime/raylet/gcs_backlog.h"

namespace ray::raylet {

void GcsBacklog::RecordJobEnds(
    const std::function<Status(const JobId& job_id, int32_t code)>& record) {
  while (!job_ends_.empty()) {
    const auto& [job_id, code] = job_ends_.back();
    if (record(job_id, code).code() == StatusCode::kUnavailable) return;
    job_ends_.pop_back();
  }
}

}  // namespace ray::raylet
