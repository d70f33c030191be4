#pragma once
// PPO configuration: RLlib's key names and defaults (COMMON_CONFIG, MODEL_DEFAULTS and
// the PPO DEFAULT_CONFIG of RLlib ~0.7, catalog §6.2/§6.6), loaded once at the edge
// from a JSON overlay and passed down by value. No torch here.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/base/status.h"

namespace ray::rllib {

// The subset of RLlib's MODEL_DEFAULTS the built-in fully connected net honours.
struct ModelConfig {
  std::vector<int> fcnet_hiddens = {256, 256};  // layer sizes
  std::string fcnet_activation = "tanh";        // "tanh" | "relu" | "linear"
  // Value head reads the policy trunk's last hidden layer instead of its own trunk.
  // RLlib 0.7 keeps this key at the top level of the PPO config; later releases
  // moved it into "model". Both spellings are accepted.
  bool vf_share_layers = false;
  // Box actions only. false: the net outputs [mean, log_std] (state-dependent
  // log_std, RLlib's default). true: log_std is a free, state-independent parameter.
  bool free_log_std = false;
};

struct PPOConfig {
  // --- COMMON_CONFIG keys used by the single-process learner and samplers.
  double gamma = 0.99;                   // discount factor
  double lr = 5e-5;                      // Adam step size (PPO default)
  // Piecewise-linear lr over env steps trained, [[t0, lr0], [t1, lr1], ...] with
  // increasing t; the last value holds beyond the end (RLlib's PiecewiseSchedule with
  // outside_value = last). Empty: constant `lr`.
  std::vector<std::pair<int64_t, double>> lr_schedule;
  int64_t train_batch_size = 4000;       // env steps per SGD round
  int64_t sample_batch_size = 200;       // rollout fragment length per env
  int num_workers = 2;                   // rollout workers (ignored in-process)
  int num_envs_per_worker = 1;           // envs stepped as one batch per worker
  double num_cpus_per_worker = 1;        // CPUs each rollout-worker actor holds
  double num_cpus_for_driver = 1;        // CPUs the trainer (the trial's actor) holds
  int num_gpus = 0;                      // must be 0: the Debian libtorch is CPU-only
  std::string batch_mode = "truncate_episodes";  // or "complete_episodes"
  std::string observation_filter = "NoFilter";   // only "NoFilter" is implemented
  std::optional<int64_t> horizon;        // null: the env's own time limit
  bool clip_actions = true;              // clip Box actions to the space bounds
  // A rollout worker that dies is replaced by a new one (its restart is counted in
  // the results) instead of failing the training run.
  bool recreate_failed_workers = false;
  std::optional<int64_t> seed;           // null: nondeterministic
  std::string env;                       // env name (informational here)
  std::string env_plugin;                // an env plugin library to load first
  int metrics_smoothing_episodes = 100;  // episode_reward_mean window
  ModelConfig model;

  // --- PPO keys.
  bool use_gae = true;          // GAE (arXiv:1506.02438) vs plain discounted returns
  bool use_critic = true;       // learn a value function (required by use_gae)
  double lambda = 1.0;          // GAE lambda
  double kl_coeff = 0.2;        // initial KL penalty coefficient; 0 disables the term
  double kl_target = 0.01;      // target for the adaptive KL coefficient
  int64_t sgd_minibatch_size = 128;
  int num_sgd_iter = 30;        // epochs over each train batch
  bool shuffle_sequences = true;  // reshuffle rows every epoch
  double vf_loss_coeff = 1.0;
  double entropy_coeff = 0.0;
  double clip_param = 0.3;      // surrogate ratio clip
  double vf_clip_param = 10.0;  // clip on the per-sample squared value error
  std::optional<double> grad_clip;  // global-norm clip; null: none
  bool simple_optimizer = false;    // accepted for compatibility; SGD is the same

  // Overlays `json` (an object of RLlib keys, e.g. {"lr": 3e-4, "model":
  // {"fcnet_hiddens": [64, 64]}}) onto `base`. Unknown keys, wrong types and values
  // out of range are InvalidArgument naming the key ("model.fcnet_hidens").
  static Result<PPOConfig> FromJson(const std::string& json, const PPOConfig& base);
  // Overlay onto the defaults.
  static Result<PPOConfig> FromJson(const std::string& json);
  // The config as a JSON object with every key above (round-trips via FromJson).
  std::string ToJson() const;
  // Cross-key checks (minibatch <= train batch, use_gae needs use_critic, ...).
  Status Validate() const;
  // The learning rate after `timesteps` env steps have been trained on.
  double LrAt(int64_t timesteps) const;
};

}  // namespace ray::rllib
