#pragma once
// RLlib's AsyncSampler (`sample_async: true`): a thread that samples with a rollout
// worker of its own without being asked, so that a worker's env steps overlap with
// what its process does meanwhile (A3C's gradients). Samples wait in a queue of at
// most kQueueSize; when it is full the thread waits before sampling more. Next()
// takes the oldest, so a sample may have been made with weights a version or more
// old ("slightly off-policy", as RLlib says).
//
// New weights and the global timestep are handed over without waiting: the thread
// takes the latest of each before its next fragment. With() runs a function on the
// worker between two fragments (the filter); the thread lets a waiting With() go
// first. A failed fragment ends the thread: Next() returns the samples queued before
// it, then its error, again and again. The destructor stops and joins the thread
// (after the fragment being sampled, if any). Thread-safe.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

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

  // For the fragments to come (the latest call wins).
  void SetWeights(std::vector<float> weights);
  void SetGlobalTimestep(int64_t global_timestep);

  // f(worker) between two fragments.
  template <typename F>
  auto With(F&& f) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++waiting_;
    }
    struct Leave {
      AsyncSampler* s;
      ~Leave() {
        {
          std::lock_guard<std::mutex> lock(s->mu_);
          --s->waiting_;
        }
        s->changed_.notify_all();
      }
    } leave{this};
    std::lock_guard<std::mutex> hold(worker_mu_);
    return f(*worker_);
  }

 private:
  void Run();
  // One fragment with the handed-over weights and timestep.
  Result<SampleResult> SampleWith(std::optional<std::vector<float>> weights, std::optional<int64_t> timestep);

  std::unique_ptr<RolloutWorker> worker_;
  std::mutex worker_mu_;  // held while sampling a fragment and by With()
  std::mutex mu_;         // guards the fields below
  std::condition_variable changed_;
  std::deque<SampleResult> queue_;
  std::optional<std::vector<float>> pending_weights_;
  std::optional<int64_t> pending_timestep_;
  int waiting_ = 0;  // With() calls waiting for the worker
  Status error_;     // the thread's end, once it failed
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace ray::rllib
