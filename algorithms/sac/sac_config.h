#pragma once
// SAC's config: RLlib 0.7's SAC DEFAULT_CONFIG over COMMON_CONFIG (and the replay
// keys, replay_config.h). Implemented: twin_q, Q_model and policy_model
// (hidden_activation, hidden_layer_sizes), tau, target_entropy ("auto": -dim(A), or a
// number), initial_alpha, n_step, exploration_enabled, no_done_at_end, optimization
// (actor_learning_rate, critic_learning_rate, entropy_learning_rate),
// grad_norm_clipping and the replay keys. Accepted only at their one implemented
// value: use_state_preprocessor false, policy "GaussianLatentSpacePolicy",
// normalize_actions true (the policy acts in [-1, 1], mapped onto the Box's bounds).
// The evaluation keys are common (runtime/rllib/common_config.h). Refused: lr, lr_schedule, a
// non-empty model. Torch-free.

#include <optional>
#include <string>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/rllib/common_config.h"
#include "runtime/rllib/replay/replay_config.h"

namespace ray::rllib {

struct SACNetConfig {
  std::string hidden_activation = "relu";
  std::vector<int> hidden_layer_sizes = {256, 256};
};

struct SACConfig : CommonConfig {
  SACConfig() {
    num_workers = 0;
    train_batch_size = 256;
    sample_batch_size = 1;
    min_iter_time_s = 1;
    timesteps_per_iteration = 100;
    clip_actions = false;
    replay.buffer_size = 1000000;
    replay.prioritized_replay = false;
    replay.learning_starts = 1500;
  }
  bool twin_q = true;
  SACNetConfig Q_model, policy_model;
  double tau = 5e-3;
  std::optional<double> target_entropy;  // null: "auto"
  double initial_alpha = 1.0;
  bool exploration_enabled = true;
  bool no_done_at_end = true;
  double actor_learning_rate = 3e-4, critic_learning_rate = 3e-4, entropy_learning_rate = 3e-4;
  ReplayConfig replay;

  static Result<SACConfig> FromJson(const std::string& json);
  std::string ToJson() const;
  Status Validate() const;
  SyncReplayOptions ReplayOptions() const { return replay.Options(*this); }
};

}  // namespace ray::rllib
