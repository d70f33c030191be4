#include "runtime/scheduler/task_durations.h"

namespace ray::scheduler {

void TaskDurations::Record(const std::string& function, double ms) {
  if (ms < 0) return;
  auto [it, first] = ms_.emplace(function, ms);
  if (!first) it->second += (ms < it->second ? 0.5 : 0.1) * (ms - it->second);
}

std::optional<double> TaskDurations::EstimateMs(const std::string& function) const {
  auto it = ms_.find(function);
  if (it == ms_.end()) return std::nullopt;
  return it->second;
}

}  // namespace ray::scheduler
