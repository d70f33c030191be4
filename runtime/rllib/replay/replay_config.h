#pragma once
// The replay keys RLlib 0.7's replay-based algorithms (DQN, DDPG/TD3, SAC) share, with
// their SyncReplayOptimizer options; and what the continuous-control ones do to the
// common keys: their networks come from their own keys, so the common `lr`,
// `lr_schedule`, `vf_share_layers` and a non-empty `model` are refused by name.
// Torch-free.

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/base/status.h"
#include "runtime/rllib/common_config.h"
#include "runtime/rllib/optimizers/sync_replay_optimizer.h"

namespace ray::rllib {

struct ReplayConfig {
  int64_t buffer_size = 50000;
  bool prioritized_replay = true;
  double prioritized_replay_alpha = 0.6;
  double prioritized_replay_beta = 0.4;
  double beta_annealing_fraction = 0.2;
  double final_prioritized_replay_beta = 0.4;
  double prioritized_replay_eps = 1e-6;
  int64_t schedule_max_timesteps = 100000;
  int64_t learning_starts = 1500;
  int64_t target_network_update_freq = 0;
  int n_step = 1;

  // Adds the replay keys (and the refusals of compress_observations,
  // per_worker_exploration, worker_side_prioritization) to `keys`.
  void AddKeys(ConfigKeys* keys);
  Status Validate() const;
  nlohmann::json ToJson() const;
  SyncReplayOptions Options(const CommonConfig& common) const;
};

// Takes `lr`, `lr_schedule`, `vf_share_layers` and `model` out of the common keys of
// `algo`, whose networks are configured by `instead` (named in the refusal); `model`
// is accepted only as {} (RLlib's use_state_preprocessor false leaves it unused).
void RefuseModelKeys(ConfigKeys* keys, const std::string& algo, const std::string& instead);
// CommonJson() without the keys RefuseModelKeys took out.
nlohmann::json CommonJsonWithoutModel(const CommonConfig& c);

}  // namespace ray::rllib
