#pragma once
// LearnerThread: RLlib 0.7's LearnerThread for AsyncSamplesOptimizer (IMPALA, APPO)
// and AsyncReplayOptimizer (Ape-X: a replayed batch's TD errors come back with it).
// A background thread takes train batches from a bounded queue (learner_queue_size),
// tells the policy the global timestep the batch came with (OnGlobalVarUpdate: env
// steps sampled before it; lr_schedule reads it) and runs num_sgd_iter LearnOnBatch
// calls on it; the sampling side learns how many
// env steps were trained and whether the weights changed since it last asked.
//
// The policy is shared with the caller's thread: every use of it from outside goes
// through WithPolicy (one mutex; the learn step holds it too). An exception in
// LearnOnBatch stops the thread; the next Put, TakeTrained or WithPolicy rethrows it.
// Pure code (std threads, no ray API).

#include <ray/rllib/policy.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "runtime/rllib/optimizers/policy_optimizer.h"
#include "runtime/rllib/optimizers/sync_replay_optimizer.h"

namespace ray::rllib {

class LearnerThread {
 public:
  // Throws std::invalid_argument for queue_size or num_sgd_iter < 1.
  LearnerThread(Policy* policy, int queue_size, int num_sgd_iter)
      : policy_(policy), queue_size_(queue_size), num_sgd_iter_(num_sgd_iter) {
    if (queue_size < 1) throw std::invalid_argument("config key 'learner_queue_size' must be >= 1");
    if (num_sgd_iter < 1) throw std::invalid_argument("config key 'num_sgd_iter' must be >= 1");
    thread_ = std::thread([this] { Run(); });
  }
  ~LearnerThread() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  LearnerThread(const LearnerThread&) = delete;
  LearnerThread& operator=(const LearnerThread&) = delete;

  // What a batch replayed from a shard (Ape-X) gives back once learned on: the shard,
  // the slots of its rows and their TD errors (the policy's LastTDErrors).
  struct Replayed {
    int shard = 0;
    std::vector<int64_t> indexes;
    std::vector<float> td_errors;
  };

  // Queues a train batch sampled after `global_timestep` env steps, waiting while the
  // queue is full. False if it stayed full for `timeout` (the batch is not queued).
  // A batch replayed from `replayed` (its td_errors empty) comes back from
  // TakeReplayed once learned on; the policy must then be a ReplayPolicy.
  bool Put(SampleBatch batch, int64_t global_timestep, std::chrono::milliseconds timeout,
           std::optional<Replayed> replayed = std::nullopt) {
    std::unique_lock<std::mutex> l(mu_);
    RethrowLocked();
    if (!cv_.wait_for(l, timeout,
                      [&] { return queue_.size() < static_cast<size_t>(queue_size_) || error_; })) {
      return false;
    }
    RethrowLocked();
    queue_.push_back({std::move(batch), global_timestep, std::move(replayed)});
    cv_.notify_all();
    return true;
  }
  // The replayed batches learned on since the last call.
  std::vector<Replayed> TakeReplayed() {
    std::lock_guard<std::mutex> l(mu_);
    RethrowLocked();
    return std::exchange(replayed_, {});
  }

  // Env steps trained since the last call (RLlib's outqueue, drained).
  int64_t TakeTrained() {
    std::lock_guard<std::mutex> l(mu_);
    RethrowLocked();
    return std::exchange(trained_, 0);
  }
  // Whether the weights changed since the last call (RLlib's weights_updated).
  bool TakeWeightsUpdated() {
    std::lock_guard<std::mutex> l(mu_);
    return std::exchange(weights_updated_, false);
  }
  // Runs fn(policy) while no learn step runs.
  template <typename Fn>
  auto WithPolicy(Fn&& fn) {
    {
      std::lock_guard<std::mutex> l(mu_);
      RethrowLocked();
    }
    std::lock_guard<std::mutex> p(policy_mu_);
    return fn(*policy_);
  }
  // Waits until the queue is empty and no learn step runs, up to `timeout`; false at
  // the timeout.
  bool Drain(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> l(mu_);
    bool ok = cv_.wait_for(l, timeout, [&] { return (queue_.empty() && !learning_) || error_; });
    RethrowLocked();
    return ok;
  }

  LearnerStats learner_stats() const {
    std::lock_guard<std::mutex> l(mu_);
    return stats_;
  }
  size_t queue_size() const {
    std::lock_guard<std::mutex> l(mu_);
    return queue_.size();
  }
  // Mean of the last learn steps, ms (RLlib's learner grad_timer).
  double grad_time_ms() const {
    std::lock_guard<std::mutex> l(mu_);
    return grad_timer_.mean_ms();
  }
  int64_t num_learn_steps() const {
    std::lock_guard<std::mutex> l(mu_);
    return num_steps_;
  }

 private:
  void Run() {
    for (;;) {
      Item item;
      {
        std::unique_lock<std::mutex> l(mu_);
        cv_.wait(l, [&] { return stopping_ || !queue_.empty(); });
        if (stopping_) return;
        item = std::move(queue_.front());
        queue_.pop_front();
        learning_ = true;
      }
      const SampleBatch& batch = item.batch;
      cv_.notify_all();  // a Put waiting for room
      LearnerStats stats;
      std::exception_ptr error;
      const auto start = std::chrono::steady_clock::now();
      try {
        std::lock_guard<std::mutex> p(policy_mu_);
        policy_->OnGlobalVarUpdate(item.timestep);
        for (int i = 0; i < num_sgd_iter_; ++i) stats = policy_->LearnOnBatch(batch);
        if (item.replayed) {
          auto* replay = dynamic_cast<ReplayPolicy*>(policy_);
          if (!replay) throw std::invalid_argument("a replayed batch needs a policy with TD errors");
          item.replayed->td_errors = replay->LastTDErrors();
        }
      } catch (...) {
        error = std::current_exception();
      }
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      {
        std::lock_guard<std::mutex> l(mu_);
        learning_ = false;
        if (error) {
          error_ = error;
        } else {
          grad_timer_.Push(ms);
          stats_ = std::move(stats);
          trained_ += batch.size();
          if (item.replayed) replayed_.push_back(std::move(*item.replayed));
          weights_updated_ = true;
          ++num_steps_;
        }
      }
      cv_.notify_all();
      if (error) return;
    }
  }

  void RethrowLocked() const {
    if (error_) std::rethrow_exception(error_);
  }

  Policy* policy_;
  const int queue_size_;
  const int num_sgd_iter_;
  mutable std::mutex mu_;  // everything below
  std::mutex policy_mu_;   // the policy
  std::condition_variable cv_;
  struct Item {
    SampleBatch batch;
    int64_t timestep = 0;  // global timestep
    std::optional<Replayed> replayed;
  };
  std::deque<Item> queue_;
  std::vector<Replayed> replayed_;
  bool stopping_ = false;
  bool learning_ = false;
  bool weights_updated_ = false;
  int64_t trained_ = 0;
  int64_t num_steps_ = 0;
  LearnerStats stats_;
  TimerStat grad_timer_;
  std::exception_ptr error_;
  std::thread thread_;  // last: starts after the members it uses
};

}  // namespace ray::rllib
