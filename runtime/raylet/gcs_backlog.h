#pragma once
// What waits for the GCS while it does not answer (it died; its supervisor starts it
// again): clients' requests that need its answer, actor calls whose actor's node it
// must name, and job ends it must record. The raylet's loop never waits for the GCS:
// it answers and sends these once the GCS is back.
//
// Pure bookkeeping: no sockets, no clock; the raylet owns one (not thread-safe).

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/serialization/protocol.h"

namespace ray::raylet {

class GcsBacklog {
 public:
  struct Call {
    std::string peer;
    uint64_t req = 0;
    std::string body;  // the CallRequest
  };

  void DeferCall(Call call) { calls_.push_back(std::move(call)); }
  void DeferActorTask(protocol::TaskSpec t) { actor_tasks_.push_back(std::move(t)); }
  // The end of a job the GCS must record (a driver that vanished could not).
  void JobEnded(const JobId& job_id, int32_t exit_code) {
    job_ends_.emplace_back(job_id, exit_code);
  }

  // Whether the GCS went down (first call after it answered last): say so once.
  bool WentDown() { return !std::exchange(down_, true); }
  // Whether the GCS came back since the last look: `reconnects` is how often its
  // client reconnected in all (gcs::GcsWatch::reconnects).
  bool CameBack(uint64_t reconnects) {
    if (reconnects == reconnects_seen_) return false;
    reconnects_seen_ = reconnects;
    down_ = false;
    return true;
  }
  std::deque<Call> TakeCalls() { return std::exchange(calls_, {}); }
  std::deque<protocol::TaskSpec> TakeActorTasks() { return std::exchange(actor_tasks_, {}); }
  // Records the job ends with `record`, latest first, until one is Unavailable (it
  // and those before it are tried again next time).
  void RecordJobEnds(const std::function<Status(const JobId& job_id, int32_t code)>& record);

 private:
  std::deque<Call> calls_;
  std::deque<protocol::TaskSpec> actor_tasks_;
  std::vector<std::pair<JobId, int32_t>> job_ends_;  // (job id, exit code)
  uint64_t reconnects_seen_ = 0;
  bool down_ = false;
};

}  // namespace ray::raylet
