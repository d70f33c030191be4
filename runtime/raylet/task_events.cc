#include "runtime/raylet/task_events.h"

#include <string_view>
#include <utility>

#include "runtime/ids/ids.h"

namespace ray::raylet {

void TaskEvents::Record(const TaskId& task_id, const JobId& job_id,
                        const std::string& function, std::string worker, const char* state,
                        int64_t start_ms, int64_t end_ms) {
  std::string_view s = state;
  if (s == gcs::kTaskFinished || s == gcs::kTaskFailed) running_.erase(task_id);
  if (pending_.size() >= kMaxBuffered) {
    pending_.erase(pending_.begin());
    ++dropped_;
  }
  // (The GCS's rows say "" for no task or job: a driver's profile span runs no task.)
  auto bytes = [](const auto& id) { return id.IsNil() ? std::string() : id.Binary(); };
  pending_.push_back(gcs::TaskEvent{bytes(task_id), bytes(job_id), function, node_id_,
                                    std::move(worker), start_ms, end_ms, state});
}

void TaskEvents::ForgetJob(const JobId& job_id) {
  std::erase_if(running_, [&](const TaskId& task) { return TaskJob(task) == job_id; });
}

size_t TaskEvents::Sent() {
  pending_.clear();
  return std::exchange(dropped_, 0);
}

}  // namespace ray::raylet
