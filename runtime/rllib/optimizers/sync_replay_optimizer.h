#pragma once
// SyncReplayOptimizer: RLlib 0.7's SyncReplayOptimizer (catalog §6, used by DQN) with
// the target-network update RLlib's DQN trainer runs after each optimizer step. One
// Step():
//   1. the sampler runs the rollout workers once (each returns sample_batch_size
//      steps per env) with the learner's weights, telling them the global timestep
//      (env steps sampled so far; their exploration schedules read it); every row
//      goes into the replay buffer;
//   2. once num_steps_sampled >= learning_starts: one train_batch_size sample from the
//      buffer (prioritized: beta annealed linearly from prioritized_replay_beta to
//      final_prioritized_replay_beta over beta_annealing_timesteps steps trained),
//      one LearnOnBatch, and (prioritized) the sampled rows' priorities set to
//      |td_error| + prioritized_replay_eps;
//   3. num_steps_sampled grows by the rows sampled, num_steps_trained by
//      train_batch_size per learn step; when num_steps_sampled - last_target_update_ts
//      > target_network_update_freq, the policy's target network is updated.
// Stats: num_steps_sampled, num_steps_trained, sample/replay/grad time, and the
// figures learning_starts, train_batch_size, sample_batch_size,
// target_network_update_freq, num_target_updates, last_target_update_ts,
// replay_buffer_size, prioritized_replay_beta. Pure code (the sampler is a
// function), not thread-safe.

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <vector>

#include <ray/rllib/policy.h>

#include "runtime/rllib/optimizers/policy_optimizer.h"
#include "runtime/rllib/replay/linear_schedule.h"
#include "runtime/rllib/replay/replay_buffer.h"
#include "runtime/rllib/rollout_worker.h"

namespace ray::rllib {

// What SyncReplayOptimizer needs from the learning policy beyond Policy.
class ReplayPolicy {
 public:
  virtual ~ReplayPolicy() = default;
  // One TD error per row of the last LearnOnBatch.
  virtual std::vector<float> LastTDErrors() const = 0;
  // Copies the online network's weights into the target network.
  virtual void UpdateTarget() = 0;
  // One TD error per row of a postprocessed batch, without learning (Ape-X's
  // worker-side prioritization).
  virtual std::vector<float> ComputeTDErrors(const SampleBatch& batch) {
    throw std::invalid_argument("this policy cannot compute TD errors on its workers "
                                "(worker_side_prioritization)");
  }
};

struct SyncReplayOptions {
  int64_t learning_starts = 1000;
  int64_t buffer_size = 50000;
  bool prioritized_replay = true;
  double prioritized_replay_alpha = 0.6;
  double prioritized_replay_beta = 0.4;
  double final_prioritized_replay_beta = 0.4;
  // RLlib: schedule_max_timesteps * beta_annealing_fraction.
  int64_t beta_annealing_timesteps = 20000;
  double prioritized_replay_eps = 1e-6;
  int64_t train_batch_size = 32;
  int64_t sample_batch_size = 4;  // reported only (the workers' fragment length)
  int64_t target_network_update_freq = 500;
  uint64_t seed = 0;  // the buffer's sampling
};

class SyncReplayOptimizer : public PolicyOptimizer {
 public:
  using Options = SyncReplayOptions;
  // One round of sampling: every worker's result, given the global timestep.
  using Sampler = std::function<std::vector<SampleResult>(int64_t global_timestep)>;

  // `learner` must also be a ReplayPolicy; std::invalid_argument otherwise or for bad
  // options (naming the config key).
  SyncReplayOptimizer(Sampler sampler, Policy* learner, Options options);

  OptimizerStep Step() override;
  const PolicyOptimizerStats& stats() const override { return stats_; }
  void RestoreCounters(int64_t sampled, int64_t trained) override;
  const ReplayBuffer& replay_buffer() const { return *buffer_; }

 private:
  LearnerStats Optimize();
  void Publish();

  Sampler sampler_;
  Policy* learner_;
  ReplayPolicy* replay_policy_;
  Options options_;
  std::unique_ptr<ReplayBuffer> buffer_;
  PrioritizedReplayBuffer* prioritized_ = nullptr;  // buffer_ when prioritized
  LinearSchedule beta_;
  PolicyOptimizerStats stats_;
  int64_t last_target_update_ts_ = 0;
  int64_t num_target_updates_ = 0;
};

}  // namespace ray::rllib
