#pragma once
// Ape-X DQN's config: RLlib 0.7's APEX_DEFAULT_CONFIG over DQN's (dqn_config.h):
// n_step 3, num_workers 32, buffer_size 2,000,000, learning_starts 50,000,
// train_batch_size 512, sample_batch_size 50, target_network_update_freq 500,000,
// timesteps_per_iteration 25,000, min_iter_time_s 30, per_worker_exploration and
// worker_side_prioritization true, optimizer {max_weight_sync_delay: 400,
// num_replay_buffer_shards: 4, debug: false}. RLlib's num_gpus 1 is 0 here (CPU-only
// libtorch).
//
// per_worker_exploration: rollout worker i of N explores with a constant epsilon
// 0.4^(1 + i / (N - 1) * 7) (RLlib's make_exploration_schedule), so it needs N >= 2;
// false: every worker follows DQN's schedule. The replay shards always prioritize
// (prioritized_replay: false is refused) with a fixed beta (a
// final_prioritized_replay_beta other than prioritized_replay_beta is refused).
// Torch-free.

#include <string>

#include "algorithms/dqn/dqn_config.h"
#include "runtime/base/status.h"
#include "runtime/rllib/optimizers/async_replay_optimizer.h"

namespace ray::rllib {

struct ApexConfig : DQNConfig {
  ApexConfig();
  bool per_worker_exploration = true;
  bool worker_side_prioritization = true;
  int64_t max_weight_sync_delay = 400;
  int num_replay_buffer_shards = 4;
  // Ray 1.x's training_intensity (not in RLlib 0.7): rows trained per row sampled
  // that the samplers wait for; null: they never wait.
  std::optional<double> training_intensity;

  static Result<ApexConfig> FromJson(const std::string& json);
  std::string ToJson() const;
  Status Validate() const;
  AsyncReplayOptions AsyncReplay() const;
  // The config of rollout worker `worker_index` (1..num_workers): its epsilon.
  void ForWorker(int worker_index);
};

}  // namespace ray::rllib
