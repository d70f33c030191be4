#pragma once
// Ape-X DQN's config: RLlib 0.7's APEX_DEFAULT_CONFIG over DQN's (dqn_config.h), the
// Ape-X keys and defaults of apex_keys.h. With per_worker_exploration, rollout worker
// i of N explores with the constant epsilon 0.4^(1 + i/(N-1) * 7); false: DQN's
// annealed epsilon. Torch-free.

#include "algorithms/apex/apex_keys.h"
#include "algorithms/dqn/dqn_config.h"

namespace ray::rllib {

inline constexpr char kApexName[] = "APEX";
using ApexConfig = ApexConfigOf<DQNConfig, &DQNConfig::fixed_epsilon, kApexName>;

}  // namespace ray::rllib
