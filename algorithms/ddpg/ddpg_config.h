#pragma once
// DDPG's config, which TD3 shares: RLlib 0.7's DDPG DEFAULT_CONFIG (catalog §6,
// "DDPG / TD3") over COMMON_CONFIG and the replay keys (replay_config.h);
// TD3Defaults() is RLlib's TD3 config (td3.py) over it. Implemented: twin_q,
// policy_delay, smooth_target_policy, target_noise, target_noise_clip, actor_hiddens,
// actor_hidden_activation, critic_hiddens, critic_hidden_activation, n_step, the
// exploration keys (Ornstein-Uhlenbeck or Gaussian noise, its annealing, pure
// exploration steps), critic_lr, actor_lr, tau, use_huber, huber_threshold, l2_reg,
// grad_norm_clipping and the replay keys. Accepted only at their off value:
// use_state_preprocessor, parameter_noise. The evaluation keys are common
// (runtime/rllib/common_config.h). Refused: lr, lr_schedule, a non-empty model. Torch-free.

#include <optional>
#include <string>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/rllib/common_config.h"
#include "runtime/rllib/replay/replay_config.h"

namespace ray::rllib {

struct DDPGConfig : CommonConfig {
  DDPGConfig() {
    num_workers = 0;
    train_batch_size = 256;
    sample_batch_size = 1;
    min_iter_time_s = 1;
    timesteps_per_iteration = 1000;
    replay.buffer_size = 50000;
    replay.learning_starts = 1500;
  }
  // RLlib's TD3 defaults: twin Q, policy_delay 2, target smoothing, Gaussian noise,
  // 10k pure exploration steps, batch 100, tau 5e-3, no prioritized replay, no l2.
  static DDPGConfig TD3Defaults();

  // TD3 tricks.
  bool twin_q = false;
  int policy_delay = 1;
  bool smooth_target_policy = false;
  double target_noise = 0.2;
  double target_noise_clip = 0.5;
  // Model.
  std::vector<int> actor_hiddens = {400, 300};
  std::string actor_hidden_activation = "relu";
  std::vector<int> critic_hiddens = {400, 300};
  std::string critic_hidden_activation = "relu";
  // Exploration.
  bool exploration_should_anneal = false;
  double exploration_fraction = 0.1;
  double exploration_final_scale = 0.02;
  std::string exploration_noise_type = "ou";  // "ou" | "gaussian"
  double exploration_ou_noise_scale = 0.1;
  double exploration_ou_theta = 0.15;
  double exploration_ou_sigma = 0.2;
  double exploration_gaussian_sigma = 0.1;
  int64_t pure_exploration_steps = 1000;
  // Optimization.
  double critic_lr = 1e-3, actor_lr = 1e-3;
  double tau = 0.002;
  bool use_huber = false;
  double huber_threshold = 1.0;
  double l2_reg = 1e-6;
  ReplayConfig replay;

  // Overlays the JSON object onto `defaults` (DDPG's or TD3Defaults()); unknown or
  // unsupported keys and bad values are InvalidArgument naming the key.
  static Result<DDPGConfig> FromJson(const std::string& json, DDPGConfig defaults = DDPGConfig());
  // DDPG's config keys (the common and replay keys included), writing into `c`.
  static ConfigKeys Keys(DDPGConfig* c);
  // Not a config key: a constant noise scale instead of the schedule (Ape-X DDPG's
  // per_worker_exploration sets one per rollout worker).
  std::optional<double> fixed_noise_scale;
  std::string ToJson() const;
  Status Validate() const;

  // The multiplier of the exploration noise after `t` env steps: 1, or annealed
  // linearly to exploration_final_scale over exploration_fraction *
  // schedule_max_timesteps with exploration_should_anneal.
  double NoiseScaleAt(int64_t t) const;
  // Gaussian noise: exploration_noise_type "gaussian", or smooth_target_policy (as
  // RLlib 0.7, which switches TD3 to IID Gaussian noise).
  bool GaussianNoise() const { return exploration_noise_type == "gaussian" || smooth_target_policy; }
  SyncReplayOptions ReplayOptions() const { return replay.Options(*this); }
};

}  // namespace ray::rllib
