#pragma once
// DQN's config: RLlib 0.7's DQN DEFAULT_CONFIG (catalog §6, "DQN / Rainbow") over
// COMMON_CONFIG. Keys this implementation does not support are refused with a message
// naming them: soft_q, parameter_noise, per_worker_exploration,
// worker_side_prioritization, compress_observations and a non-empty
// evaluation_config. v_min and v_max matter only with num_atoms > 1, sigma0 only
// with noisy, softmax_temp not at all (as in RLlib, only soft_q reads it). Torch-free.

#include <optional>
#include <string>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/rllib/common_config.h"
#include "runtime/rllib/optimizers/sync_replay_optimizer.h"
#include "runtime/rllib/replay/replay_config.h"

namespace ray::rllib {

struct DQNConfig : CommonConfig {
  DQNConfig() {
    num_workers = 0;
    lr = 5e-4;
    train_batch_size = 32;
    sample_batch_size = 4;
    grad_clip = 40.0;  // grad_norm_clipping
    min_iter_time_s = 1;
    timesteps_per_iteration = 1000;
    replay.learning_starts = 1000;
    replay.target_network_update_freq = 500;
  }
  // Model.
  int num_atoms = 1;
  double v_min = -10.0, v_max = 10.0;
  bool noisy = false;
  double sigma0 = 0.5;
  bool dueling = true;
  bool double_q = true;
  std::vector<int> hiddens = {256};  // Q head layers (relu) after the model's trunk
  // Exploration (its schedule length is replay.schedule_max_timesteps).
  double exploration_fraction = 0.1;
  double exploration_final_eps = 0.02;
  double softmax_temp = 1.0;
  // Replay, n_step, learning_starts and target_network_update_freq: the keys the
  // replay-based algorithms share, with DQN's defaults.
  ReplayConfig replay;
  // Optimization.
  double adam_epsilon = 1e-8;
  // Not a config key: a constant epsilon instead of the schedule (Ape-X's
  // per_worker_exploration sets one per rollout worker).
  std::optional<double> fixed_epsilon;

  // DQN's config keys (the common and replay keys included), writing into `c`.
  static ConfigKeys Keys(DQNConfig* c);

  // Overlays the JSON object onto the defaults; unknown or unsupported keys and bad
  // values are InvalidArgument naming the key.
  static Result<DQNConfig> FromJson(const std::string& json);
  std::string ToJson() const;
  Status Validate() const;

  // The epsilon of epsilon-greedy after `t` env steps: 1.0 annealed linearly to
  // exploration_final_eps over exploration_fraction * schedule_max_timesteps (or
  // fixed_epsilon, when set).
  double EpsilonAt(int64_t t) const;
  SyncReplayOptions ReplayOptions() const;
};

}  // namespace ray::rllib
