#pragma once
// AsyncSamplesOptimizer: RLlib 0.7's AsyncSamplesOptimizer, "the main event loop of
// the IMPALA architecture" (catalog RL-110/RL-112), used by IMPALA and APPO, with its
// SimpleAggregator. Sampling and learning overlap:
//   * construction: the learner's weights are put once; every remote worker gets
//     set_weights(that ref) and max_sample_requests_in_flight_per_worker sample()
//     requests; a LearnerThread (learner_thread.h) starts.
//   * Step(): waits for at least one sample to finish, then takes every finished one,
//     in order. Each sample's rows go into a buffer; once the buffer holds
//     train_batch_size rows it is concatenated into one train batch and put on the
//     learner's queue (waiting while the queue is full) with the global timestep (env
//     steps sampled before it), and counted as sampled; then,
//     if the learner updated the weights since the last broadcast and at least
//     broadcast_interval samples were answered with the last broadcast weights, the
//     learner's weights are put once more (a broadcast). The worker of each finished
//     sample gets set_weights(the last broadcast ref) and a new sample() request.
//     Finally the env steps the learner trained since the last step are counted.
// Stats: num_steps_sampled (rows handed to the learner), num_steps_trained,
// sample/put/broadcast timers and, as values, learner_queue_size, learner_grad_time_ms,
// num_learn_steps, num_weight_syncs, num_broadcasts. Replay (replay_proportion) and
// aggregation workers are not built.
//
// Errors: no remote worker is std::invalid_argument ("Config num_workers=0 means
// training will hang!", RLlib's ValueError); a worker's failure or the learner's is
// raised by the step; a wait longer than `wait_timeout` (for a sample, or for room
// in the learner's queue) is std::runtime_error naming it. Header-only (ray API, for
// plugins); Step() from one thread.
//
// `Worker` is an actor class with
//   void SetWeights(std::vector<float> weights);
//   SampleResult SampleCurrent();                   // RLlib's sample()

#include <ray/api.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/rllib/execution/env_runner_group.h"
#include "runtime/rllib/optimizers/learner_thread.h"
#include "runtime/rllib/optimizers/policy_optimizer.h"
#include "runtime/rllib/rollout_worker.h"

namespace ray::rllib {

struct AsyncSamplesOptions {
  int64_t train_batch_size = 500;
  int max_sample_requests_in_flight_per_worker = 2;
  int broadcast_interval = 1;  // samples answered with one broadcast before the next
  int num_sgd_iter = 1;        // LearnOnBatch calls per train batch
  int learner_queue_size = 16;
  // The longest one wait (for a sample, or for room in the learner queue) may take.
  std::chrono::milliseconds wait_timeout{std::chrono::minutes(10)};
};

template <typename Worker>
class AsyncSamplesOptimizer : public PolicyOptimizer {
 public:
  using Options = AsyncSamplesOptions;
  using Handle = ActorHandle<Worker>;

  AsyncSamplesOptimizer(EnvRunnerGroup<Worker>* workers, Policy* learner, Options options)
      : workers_(workers), options_(options) {
    if (workers_->num_remote_workers() == 0) {
      throw std::invalid_argument(
          "Config num_workers=0 means training will hang! (AsyncSamplesOptimizer needs "
          "num_workers >= 1)");
    }
    auto bad = [](const std::string& m) { throw std::invalid_argument("config key " + m); };
    if (options_.train_batch_size < 1) bad("'train_batch_size' must be >= 1");
    if (options_.max_sample_requests_in_flight_per_worker < 1) {
      bad("'max_sample_requests_in_flight_per_worker' must be >= 1");
    }
    if (options_.broadcast_interval < 1) bad("'broadcast_interval' must be >= 1");
    for (const char* t : {"sample", "put", "broadcast"}) stats_.timers[t];
    learner_ = std::make_unique<LearnerThread>(learner, options_.learner_queue_size,
                                               options_.num_sgd_iter);
    Broadcast();
    for (int id : workers_->HealthyWorkerIds()) {
      Handle h = *workers_->remote_worker(id);
      h.Task(&Worker::SetWeights).Remote(weights_);
      for (int i = 0; i < options_.max_sample_requests_in_flight_per_worker; ++i) Request(h);
    }
    Publish();
  }

  OptimizerStep Step() override {
    OptimizerStep out;
    for (size_t k : WaitForSamples()) {
      Pending done = pending_[k];
      std::shared_ptr<SampleResult> r = ray::Get(done.ref);
      out.AddEpisodes(*r);
      buffered_rows_ += r->batch.size();
      buffer_.push_back(std::move(r->batch));
      if (buffered_rows_ >= options_.train_batch_size) {
        SampleBatch train = SampleBatch::Concat(buffer_);
        buffer_.clear();
        buffered_rows_ = 0;
        const int64_t rows = train.size();
        out.steps_sampled += rows;
        {
          TimerStat::Scope t(&stats_.timers["put"]);
          if (!learner_->Put(std::move(train), stats_.num_steps_sampled + out.steps_sampled - rows,
                             options_.wait_timeout)) {
            throw std::runtime_error("AsyncSamplesOptimizer: the learner queue stayed full for " +
                                     std::to_string(options_.wait_timeout.count()) + " ms");
          }
        }
        if (learner_->TakeWeightsUpdated()) weights_stale_ = true;
        if (weights_stale_ && num_sent_since_broadcast_ >= options_.broadcast_interval) Broadcast();
      }
      done.worker.Task(&Worker::SetWeights).Remote(weights_);
      ++num_weight_syncs_;
      ++num_sent_since_broadcast_;
      Request(done.worker);
    }
    std::erase_if(pending_, [](const Pending& p) { return p.answered; });
    const int64_t trained = learner_->TakeTrained();
    stats_.num_steps_sampled += out.steps_sampled;
    stats_.num_steps_trained += trained;
    out.learner = learner_->learner_stats();
    Publish();
    return out;
  }

  const PolicyOptimizerStats& stats() const override { return stats_; }
  void RestoreCounters(int64_t sampled, int64_t trained) override {
    stats_.num_steps_sampled = sampled;
    stats_.num_steps_trained = trained;
  }
  // Runs fn between learn steps (checkpoints read and write the policy).
  void WithLearnerPaused(const std::function<void()>& fn) override {
    learner_->WithPolicy([&](Policy&) {
      fn();
      return 0;
    });
  }

 private:
  struct Pending {
    ObjectRef<SampleResult> ref;
    Handle worker;
    bool answered = false;
  };

  void Request(const Handle& worker) {
    pending_.push_back({worker.Task(&Worker::SampleCurrent).Remote(), worker});
  }

  // Waits for at least one pending sample; marks and returns every finished one, in
  // request order (RLlib's completed_prefetch(blocking_wait=True)).
  std::vector<size_t> WaitForSamples() {
    TimerStat::Scope t(&stats_.timers["sample"]);
    std::vector<ObjectRef<SampleResult>> refs;
    for (const Pending& p : pending_) refs.push_back(p.ref);
    if (refs.empty())
      throw std::runtime_error("AsyncSamplesOptimizer: no sample request is pending");
    WaitResult<SampleResult> first = ray::Wait(refs, 1, options_.wait_timeout.count());
    if (first.ready.empty()) {
      throw std::runtime_error("AsyncSamplesOptimizer: waiting for a sample from " +
                               std::to_string(refs.size()) + " requests timed out after " +
                               std::to_string(options_.wait_timeout.count()) + " ms");
    }
    WaitResult<SampleResult> all = ray::Wait(refs, refs.size(), 0);
    std::vector<size_t> out;
    size_t next = 0;
    for (size_t k = 0; k < refs.size() && next < all.ready.size(); ++k) {
      if (refs[k] == all.ready[next]) {
        pending_[k].answered = true;
        out.push_back(k);
        ++next;
      }
    }
    return out;
  }

  void Broadcast() {
    TimerStat::Scope t(&stats_.timers["broadcast"]);
    weights_ = ray::Put(learner_->WithPolicy([](Policy& p) { return p.GetWeights(); }));
    num_sent_since_broadcast_ = 0;
    weights_stale_ = false;
    ++num_broadcasts_;
  }

  void Publish() {
    auto& v = stats_.values;
    v["learner_queue_size"] = static_cast<double>(learner_->queue_size());
    v["learner_grad_time_ms"] = learner_->grad_time_ms();
    v["num_learn_steps"] = static_cast<double>(learner_->num_learn_steps());
    v["num_weight_syncs"] = static_cast<double>(num_weight_syncs_);
    v["num_broadcasts"] = static_cast<double>(num_broadcasts_);
  }

  EnvRunnerGroup<Worker>* workers_;
  Options options_;
  PolicyOptimizerStats stats_;
  std::unique_ptr<LearnerThread> learner_;
  std::vector<Pending> pending_;
  std::vector<SampleBatch> buffer_;
  int64_t buffered_rows_ = 0;
  ObjectRef<std::vector<float>> weights_;  // the last broadcast
  bool weights_stale_ = false;             // the learner changed them since
  int num_sent_since_broadcast_ = 0;
  int64_t num_weight_syncs_ = 0;
  int64_t num_broadcasts_ = 0;
};

}  // namespace ray::rllib
