#pragma once
// How long a function's tasks run, as the workers that ran them report it
// (TaskDone::run_us): whether its tasks are short enough to queue behind a busy
// worker's running task instead of waiting for a free one. A caller keeps one per
// lease shape (TaskSubmitter), a raylet one for the tasks it sends ahead (raylet/tasks_ahead.h).
//
// The estimate is a moving average that follows a faster run more quickly than a
// slower one: a fresh worker's first run (page faults, lazy binding) does not keep a
// short function's tasks out of queues for long, and a function that turns slow is
// noticed within a few runs.
//
// Pure: no clock; not thread-safe.

#include <optional>
#include <string>
#include <unordered_map>

namespace ray::scheduler {

class TaskDurations {
 public:
  // Tasks under this many milliseconds on average may queue behind others.
  static constexpr double kShortMs = 1.0;

  // A task of `function` ran `ms` milliseconds.
  void Record(const std::string& function, double ms);
  // The estimate for `function`; nullopt before its first report.
  std::optional<double> EstimateMs(const std::string& function) const;
  // Whether `function` is known to run short (false while unknown).
  bool Short(const std::string& function) const {
    auto ms = EstimateMs(function);
    return ms && *ms < kShortMs;
  }
  bool Known(const std::string& function) const { return ms_.count(function) > 0; }

 private:
  std::unordered_map<std::string, double> ms_;
};

}  // namespace ray::scheduler
