#pragma once
// Work that no node of the cluster fits now: tasks and actor creations held while an
// autoscaler may add a node that fits them, or while they wait for a bundle of their
// placement group. The raylet places them again at most once every kRetryMs (at once
// after the placement groups changed), and fails them when no autoscaler runs; it
// asks the GCS whether one runs at most every kAutoscalerCheckMs, and the last
// answer is kept here.
//
// Pure: no sockets, no clock (times are given in ms of the raylet's monotonic clock);
// the raylet owns one (not thread-safe).

#include <cstdint>
#include <deque>
#include <map>
#include <optional>

#include "runtime/scheduler/resources.h"
#include "runtime/serialization/protocol.h"

namespace ray::scheduler {

using protocol::TaskSpec;

class InfeasibleHold {
 public:
  static constexpr int64_t kRetryMs = 1000;
  static constexpr int64_t kAutoscalerCheckMs = 2000;

  void Hold(TaskSpec t) { held_.push_back(std::move(t)); }
  bool empty() const { return held_.empty(); }
  size_t size() const { return held_.size(); }
  // Whether a held task waits for a bundle of a placement group.
  bool WaitsForGroups() const;
  // What held tasks that do not wait for a group ask for, by shape (the node's load:
  // an autoscaler adds nodes for it).
  std::map<ResourceSet, int64_t> Demand() const;

  // Whether tasks are held and a retry is due at `now_ms`; if so, the next is due
  // kRetryMs later.
  bool RetryDue(int64_t now_ms);
  // Every held task, to be placed again. Until RetryDone(), retrying() is true (tasks
  // held again meanwhile are not logged again).
  std::deque<TaskSpec> TakeForRetry();
  void RetryDone() { retrying_ = false; }
  bool retrying() const { return retrying_; }
  // The next retry is due at once (what the tasks wait for may have changed).
  void RetrySoon() { next_retry_ms_ = 0; }

  // Removes the held tasks for which `drop(task)` holds; `drop` sees each task once,
  // in order, and may act on the tasks it drops (fail them).
  template <typename Drop>
  void EraseIf(Drop&& drop) {
    std::deque<TaskSpec> keep;
    for (auto& t : held_) {
      if (!drop(t)) keep.push_back(std::move(t));
    }
    held_.swap(keep);
  }

  // Whether the GCS should be asked again whether an autoscaler runs, at `now_ms`.
  bool AutoscalerCheckDue(int64_t now_ms) const {
    return autoscaler_checked_ms_ < 0 || now_ms - autoscaler_checked_ms_ >= kAutoscalerCheckMs;
  }
  // It was asked at `now_ms`; `alive` is its answer, or nullopt if it did not answer
  // (then what it said last stands).
  void AutoscalerChecked(int64_t now_ms, std::optional<bool> alive) {
    autoscaler_checked_ms_ = now_ms;
    if (alive) autoscaler_alive_ = *alive;
  }
  bool autoscaler_alive() const { return autoscaler_alive_; }

 private:
  std::deque<TaskSpec> held_;
  int64_t next_retry_ms_ = 0;
  bool retrying_ = false;
  int64_t autoscaler_checked_ms_ = -1;
  bool autoscaler_alive_ = false;
};

}  // namespace ray::scheduler
