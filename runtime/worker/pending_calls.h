#pragma once
// The async calls of a worker's actor (ray/async.h) between the end of their invoke
// (which answered RAY_OBJECT_PENDING) and their result (RayRuntimeApi::complete, on
// the plugin's callback thread). A body may end before its invoke has returned to the
// worker: such a result is kept until the call is recorded, which then answers at once.
//
// Not thread-safe: used with the client's lock held. Results handed out are the
// caller's to free; results of calls never started (or already answered) are freed here.

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>

#include "ray/abi.h"
#include "runtime/worker/task_receiver.h"

namespace ray::worker {

class PendingCalls {
 public:
  struct Call {
    IncomingTask in;
    int64_t start_ms = 0;
  };
  using Ready = std::optional<std::pair<Call, RayResult>>;

  PendingCalls() = default;
  PendingCalls(const PendingCalls&) = delete;
  PendingCalls& operator=(const PendingCalls&) = delete;
  ~PendingCalls();

  // Call `id` started (ids count up from 1).
  void Started(uint64_t id) { last_started_ = id; }
  // Its invoke answered PENDING: it waits for its result, or (if that came first) is
  // answered now.
  Ready Pend(uint64_t id, Call call);
  // The result of call `id`: the call to answer with it, or nullopt (kept until Pend
  // if its invoke has not returned yet; freed if the call is unknown).
  Ready Complete(uint64_t id, RayResult result);
  size_t size() const { return waiting_.size(); }

 private:
  uint64_t last_started_ = 0;
  std::unordered_map<uint64_t, Call> waiting_;
  std::unordered_map<uint64_t, RayResult> early_;
};

}  // namespace ray::worker
