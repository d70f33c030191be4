#pragma once
// ARS's config (RLlib 0.7's agents/ars DEFAULT_CONFIG) over the keys it shares with
// ES (algorithms/es/evolution_config.h). No torch.

#include <string>

#include "algorithms/es/evolution_config.h"

namespace ray::rllib {

struct ARSConfig : EvolutionConfig {
  ARSConfig() {
    eval_prob = 0.03;
    num_workers = 2;
    action_noise_std = 0.0;
  }
  int64_t num_rollouts = 32;   // episodes of perturbed rollouts per iteration (2 per pair)
  int64_t rollouts_used = 32;  // keep the best rollouts_used / num_rollouts of the pairs
  double sgd_stepsize = 0.01;
  double offset = 0;           // |offset| is subtracted from every reward
  // "MLPPolicy": the model's fcnet_hiddens (RLlib 0.7); "LinearPolicy": no hidden
  // layer (RLlib 0.6's ARS default).
  std::string policy_type = "MLPPolicy";

  static Result<ARSConfig> FromJson(const std::string& json);
  std::string ToJson() const;
  Status Validate() const;
};

}  // namespace ray::rllib
