#pragma once
// Ape-X DDPG's config: RLlib 0.7's APEX_DDPG_DEFAULT_CONFIG over DDPG's
// (ddpg_config.h), with the Ape-X keys and defaults of apex_keys.h. With
// per_worker_exploration, rollout worker i of N scales its exploration noise by the
// constant 0.4^(1 + i/(N-1) * 7); false: DDPG's schedule. Torch-free.

#include "algorithms/apex/apex_keys.h"
#include "algorithms/ddpg/ddpg_config.h"

namespace ray::rllib {

inline constexpr char kApexDDPGName[] = "APEX_DDPG";
using ApexDDPGConfig = ApexConfigOf<DDPGConfig, &DDPGConfig::fixed_noise_scale, kApexDDPGName>;

}  // namespace ray::rllib
