#pragma once
// RLlib's AsyncSampler (`sample_async: true`): a thread that samples with a rollout
// worker of its own without being asked, so that a worker's env steps overlap with
// what its process does meanwhile (A3C's gradients). Samples wait in a queue of at
// most kQueueSize; when it is full the thread waits. Next() takes the oldest, so a
// sample may have been made with weights one or more versions old ("slightly
// off-policy", as RLlib says).
//
// The thread holds the worker while it samples one fragment; With() runs a function
// on the worker between two fragments (new weights, the filter, the global timestep).
// A failed Sample() ends the thread: Next() returns its error, then the same error
// again. The destructor stops and joins the thread. Thread-safe.

#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "runtime/base/status.h"
#include "runtime/rllib/rollout_worker.h"

namespace ray::rllib {

class AsyncSampler {
 public:
  static constexpr size_t kQueueSize = 5;  // RLlib's AsyncSampler queue

  // Starts sampling at once.
  explicit AsyncSampler(std::unique_ptr<RolloutWorker> worker);
  ~AsyncSampler();
  AsyncSampler(const AsyncSampler&) = delete;
  AsyncSampler& operator=(const AsyncSampler&) = delete;

  // The oldest sample; DeadlineExceeded when none comes within `deadline` (RLlib
  // waits 600 s too), or the error that ended the thread.
  Result<SampleResult> Next(std::chrono::milliseconds deadline = std::chrono::minutes(10));

  // f(worker) between two fragments.
  template <typename F>
  auto With(F&& f) {
    std::lock_guard<std::mutex> lock(worker_mu_);
    return f(*worker_);
  }

 private:
  void Run();

  std::unique_ptr<RolloutWorker> worker_;
  std::mutex worker_mu_;  // held while sampling a fragment and by With()
  std::mutex mu_;         // guards the fields below
  std::condition_variable changed_;
  std::deque<SampleResult> queue_;
  Status error_;  // the thread's end, once it failed
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace ray::rllib
