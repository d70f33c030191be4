#include "runtime/scheduler/infeasible_hold.h"

#include <algorithm>

#include "runtime/scheduler/local_task_queue.h"

namespace ray::scheduler {

bool InfeasibleHold::WaitsForGroups() const {
  return std::any_of(held_.begin(), held_.end(),
                     [](const TaskSpec& t) { return !t.placement_group_id.empty(); });
}

std::map<ResourceSet, int64_t> InfeasibleHold::Demand() const {
  std::map<ResourceSet, int64_t> demand;
  for (const auto& t : held_) {
    if (t.placement_group_id.empty()) ++demand[ResourcesOf(t)];  // (others wait for a group)
  }
  return demand;
}

bool InfeasibleHold::RetryDue(int64_t now_ms) {
  if (held_.empty() || now_ms < next_retry_ms_) return false;
  next_retry_ms_ = now_ms + kRetryMs;
  return true;
}

std::deque<TaskSpec> InfeasibleHold::TakeForRetry() {
  std::deque<TaskSpec> held;
  held.swap(held_);
  retrying_ = true;
  return held;
}

}  // namespace ray::scheduler
