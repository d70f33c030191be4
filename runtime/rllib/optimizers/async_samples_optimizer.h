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
//     With replay_proportion > 0, each new fragment is kept in a ring of
//     replay_buffer_num_slots and followed into the train batches by replay_proportion kept
//     ones on average (sample_replay.h, RLlib's aggregator).
//     Finally the env steps the learner trained since the last step are counted.
// Stats: num_steps_sampled (new env rows handed to the learner; RLlib 0.7 counts
// replayed rows too), num_steps_trained (replayed rows included),
// num_steps_replayed (with replay),
// sample/put/broadcast timers and, as values, learner_queue_size, learner_grad_time_ms,
// num_learn_steps, num_weight_syncs, num_broadcasts. Aggregation workers are not
// built.
//
// Errors: no remote worker is std::invalid_argument ("Config num_workers=0 means
// training will hang!", RLlib's ValueError); the learner's failure is raised by the
// step, and so is a worker's unless the group has ignore_worker_failures or
// recreate_failed_workers: then that worker's requests are dropped, it is marked
// unhealthy and the group's ProbeUnhealthyWorkers runs at once (recreating lost
// workers when asked to); a restored worker gets the last broadcast weights and its
// requests again, and the step fails only when no request is left; a wait longer than `wait_timeout` (for a sample, or for room
// in the learner's queue) is std::runtime_error naming it. Header-only (ray API, for
// plugins); Step() from one thread.
//
// `Worker` is an actor class with
//   void SetWeights(std::vector<float> weights);
//   SampleResult SampleCurrent();                   // RLlib's sample()

#include <ray/api.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/rllib/execution/env_runner_group.h"
#include "runtime/rllib/optimizers/learner_thread.h"
#include "runtime/rllib/optimizers/policy_optimizer.h"
#include "runtime/rllib/optimizers/sample_replay.h"
#include "runtime/rllib/rollout_worker.h"

namespace ray::rllib {

struct AsyncSamplesOptions {
  int64_t train_batch_size = 500;
  int max_sample_requests_in_flight_per_worker = 2;
  int broadcast_interval = 1;  // samples answered with one broadcast before the next
  int num_sgd_iter = 1;        // LearnOnBatch calls per train batch
  int learner_queue_size = 16;
  // Experience replay (sample_replay.h): replayed fragments per new one, on average,
  // drawn from the last replay_buffer_num_slots fragments; sample_batch_size decides
  // when replay starts; seed (nullopt: random) its draws.
  double replay_proportion = 0;
  int64_t replay_buffer_num_slots = 0;
  int64_t sample_batch_size = 50;
  std::optional<uint64_t> seed = std::nullopt;
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
    workers_->RequireRemoteWorkers("AsyncSamplesOptimizer");
    auto bad = [](const std::string& m) { throw std::invalid_argument("config key " + m); };
    if (options_.train_batch_size < 1) bad("'train_batch_size' must be >= 1");
    if (options_.max_sample_requests_in_flight_per_worker < 1) {
      bad("'max_sample_requests_in_flight_per_worker' must be >= 1");
    }
    if (options_.broadcast_interval < 1) bad("'broadcast_interval' must be >= 1");
    for (const char* t : {"sample", "put", "broadcast"}) stats_.timers[t];
    if (options_.replay_proportion > 0) {
      replay_ = std::make_unique<SampleReplay>(options_.replay_proportion, options_.replay_buffer_num_slots,
                                               options_.train_batch_size, options_.sample_batch_size,
                                               options_.seed);
      stats_.values["num_steps_replayed"] = 0;
    }
    learner_ = std::make_unique<LearnerThread>(learner, options_.learner_queue_size,
                                               options_.num_sgd_iter);
    Broadcast();
    for (int id : workers_->HealthyWorkerIds()) Start(id);
    Publish();
  }

  OptimizerStep Step() override {
    OptimizerStep out;
    std::set<int> failed;
    for (size_t k : WaitForSamples()) {
      Pending done = pending_[k];
      if (failed.count(done.worker_id)) continue;
      CallResult<SampleResult> got = internal::Fetch(done.ref);
      if (!got.ok()) {
        workers_->ReportFailure(done.worker_id, *got.error);  // raises unless tolerated
        failed.insert(done.worker_id);
        for (Pending& p : pending_) p.answered = p.answered || p.worker_id == done.worker_id;
        continue;
      }
      std::shared_ptr<SampleResult> r = std::move(got.value);
      out.AddEpisodes(*r);
      std::vector<SampleBatch> replays;
      if (replay_) replays = replay_->AddAndDraw(r->batch);
      Buffer(std::move(r->batch), /*replayed=*/false, &out);
      for (SampleBatch& b : replays) Buffer(std::move(b), /*replayed=*/true, &out);
      done.worker.Task(&Worker::SetWeights).Remote(weights_);
      ++num_weight_syncs_;
      ++num_sent_since_broadcast_;
      Request(done.worker, done.worker_id);
    }
    std::erase_if(pending_, [](const Pending& p) { return p.answered; });
    if (!failed.empty()) {
      for (int id : workers_->RestoreWorkers()) Start(id);
      if (pending_.empty()) {
        throw std::runtime_error("AsyncSamplesOptimizer: no rollout worker is healthy, even after recreating them");
      }
    }
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
    int worker_id = 0;
    bool answered = false;
  };

  // Adds a fragment to the next train batch; once that holds train_batch_size rows,
  // hands it to the learner (its new rows counted as sampled) and broadcasts if due.
  void Buffer(SampleBatch fragment, bool replayed, OptimizerStep* out) {
    buffered_rows_ += fragment.size();
    if (replayed) {
      buffered_replayed_rows_ += fragment.size();
      stats_.values["num_steps_replayed"] += static_cast<double>(fragment.size());
    }
    buffer_.push_back(std::move(fragment));
    if (buffered_rows_ < options_.train_batch_size) return;
    SampleBatch train = SampleBatch::Concat(buffer_);
    const int64_t timestep = stats_.num_steps_sampled + out->steps_sampled;
    out->steps_sampled += buffered_rows_ - buffered_replayed_rows_;
    buffer_.clear();
    buffered_rows_ = 0;
    buffered_replayed_rows_ = 0;
    {
      TimerStat::Scope t(&stats_.timers["put"]);
      if (!learner_->Put(std::move(train), timestep, options_.wait_timeout)) {
        throw std::runtime_error("AsyncSamplesOptimizer: the learner queue stayed full for " +
                                 std::to_string(options_.wait_timeout.count()) + " ms");
      }
    }
    if (learner_->TakeWeightsUpdated()) weights_stale_ = true;
    if (weights_stale_ && num_sent_since_broadcast_ >= options_.broadcast_interval) Broadcast();
  }

  void Request(const Handle& worker, int id) {
    pending_.push_back({worker.Task(&Worker::SampleCurrent).Remote(), worker, id});
  }

  // Remote worker `id` gets the last broadcast weights and its sample requests.
  void Start(int id) {
    Handle h = *workers_->remote_worker(id);
    h.Task(&Worker::SetWeights).Remote(weights_);
    for (int i = 0; i < options_.max_sample_requests_in_flight_per_worker; ++i) Request(h, id);
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
  std::unique_ptr<SampleReplay> replay_;  // null without replay_proportion
  std::vector<SampleBatch> buffer_;
  int64_t buffered_rows_ = 0;
  int64_t buffered_replayed_rows_ = 0;
  ObjectRef<std::vector<float>> weights_;  // the last broadcast
  bool weights_stale_ = false;             // the learner changed them since
  int num_sent_since_broadcast_ = 0;
  int64_t num_weight_syncs_ = 0;
  int64_t num_broadcasts_ = 0;
};

}  // namespace ray::rllib
