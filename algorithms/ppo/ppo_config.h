#pragma once
// PPO configuration: RLlib's PPO DEFAULT_CONFIG (~0.7, catalog §6.6) over COMMON_CONFIG,
// loaded once at the edge from a JSON overlay and passed down by value. No torch here.

#include <cstdint>
#include <optional>
#include <string>

#include "runtime/base/status.h"
#include "runtime/rllib/common_config.h"

namespace ray::rllib {

struct PPOConfig : CommonConfig {
  PPOConfig() {
    lr = 5e-5;
    train_batch_size = 4000;
  }
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
};

}  // namespace ray::rllib
