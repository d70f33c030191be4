#pragma once
// SyncSamplesOptimizer: RLlib's SyncSamplesOptimizer(workers, num_sgd_iter,
// train_batch_size) (catalog RL-111), used by PG, A2C and PPO. One Step():
//   1. the learner's weights are put once and every healthy worker samples with them,
//      round after round, until train_batch_size env steps are collected;
//   2. the fragments are concatenated and the learning policy is told the global
//      timestep (env steps sampled before this step);
//   3. the policy learns: num_sgd_iter LearnOnBatch calls on the whole batch (PPO's
//      policy runs its minibatch epochs inside one call), or, with microbatch_size,
//      RLlib's MicrobatchOptimizer: gradients of consecutive microbatch_size-row
//      slices are computed, summed and applied once.
// A dead worker is replaced when the group recreates failed workers (its samples of
// that round are lost), else its error ends the step. Stats: num_steps_sampled,
// num_steps_trained, sample/grad/update timers. Header-only (ray API, for plugins);
// not thread-safe.

#include <ray/api.h>

#include <cstdio>
#include <stdexcept>
#include <vector>

#include "runtime/rllib/execution/env_runner_group.h"
#include "runtime/rllib/optimizers/policy_optimizer.h"
#include "runtime/rllib/rollout_worker.h"

namespace ray::rllib {

struct SyncSamplesOptions {
  int64_t train_batch_size = 1;  // env steps sampled per step
  int num_sgd_iter = 1;          // LearnOnBatch calls per step
  int64_t microbatch_size = 0;   // > 0: accumulate gradients of slices this big; 0: off
};

// `Worker` is an actor class with `SampleResult Sample(std::vector<float> weights)`.
template <typename Worker>
class SyncSamplesOptimizer : public PolicyOptimizer {
 public:
  using Options = SyncSamplesOptions;

  SyncSamplesOptimizer(EnvRunnerGroup<Worker>* workers, Policy* learner, Options options)
      : workers_(workers), learner_(learner), options_(options) {
    if (options.train_batch_size <= 0 || options.num_sgd_iter <= 0 || options.microbatch_size < 0) {
      throw std::invalid_argument("SyncSamplesOptimizer: train_batch_size and num_sgd_iter must be > 0");
    }
  }

  OptimizerStep Step() override {
    OptimizerStep out;
    std::vector<SampleBatch> batches;
    {
      TimerStat::Scope t(&stats_.timers["sample"]);
      for (SampleResult& r : Sample()) {
        batches.push_back(std::move(r.batch));
        out.AddEpisodes(r);
      }
    }
    SampleBatch batch = SampleBatch::Concat(batches);
    learner_->OnGlobalVarUpdate(stats_.num_steps_sampled);
    {
      TimerStat::Scope t(&stats_.timers["grad"]);
      if (options_.microbatch_size > 0) {
        out.learner = LearnInMicrobatches(batch);
      } else {
        for (int i = 0; i < options_.num_sgd_iter; ++i) out.learner = learner_->LearnOnBatch(batch);
      }
    }
    out.steps_sampled = batch.size();
    stats_.num_steps_sampled += batch.size();
    stats_.num_steps_trained += batch.size();
    return out;
  }

  const PolicyOptimizerStats& stats() const override { return stats_; }
  // After a restore: the counters the checkpoint kept.
  void RestoreCounters(int64_t sampled, int64_t trained) override {
    stats_.num_steps_sampled = sampled;
    stats_.num_steps_trained = trained;
  }

 private:
  std::vector<SampleResult> Sample() {
    std::vector<SampleResult> results;
    int64_t collected = 0;
    ray::ObjectRef<std::vector<float>> weights;
    {
      TimerStat::Scope t(&stats_.timers["update"]);
      weights = ray::Put(learner_->GetWeights());
    }
    while (collected < options_.train_batch_size) {
      for (auto& r : workers_->ForeachWorker(&Worker::Sample, weights)) {
        collected += r.value.batch.size();
        results.push_back(std::move(r.value));
      }
      if (workers_->num_healthy_workers() < std::max(1, workers_->num_remote_workers())) {
        workers_->RestoreWorkers();
        if (workers_->num_healthy_workers() == 0) {
          throw std::runtime_error("no rollout worker is healthy, even after recreating them");
        }
      }
    }
    return results;
  }

  LearnerStats LearnInMicrobatches(const SampleBatch& batch) {
    std::vector<float> sum;
    LearnerStats info;
    for (int64_t begin = 0; begin < batch.size(); begin += options_.microbatch_size) {
      Gradients g = learner_->ComputeGradients(
          batch.Slice(begin, std::min(batch.size(), begin + options_.microbatch_size)));
      if (sum.empty()) sum.assign(g.grads.size(), 0.f);
      for (size_t k = 0; k < sum.size(); ++k) sum[k] += g.grads[k];
      info = std::move(g.info);
    }
    learner_->ApplyGradients(sum);
    return info;
  }

  EnvRunnerGroup<Worker>* workers_;
  Policy* learner_;
  Options options_;
  PolicyOptimizerStats stats_;
};

}  // namespace ray::rllib
