// TD3 as RLlib 0.7 runs it: DDPG (algorithms/ddpg) over RLlib's TD3 defaults
// (DDPGConfig::TD3Defaults(): twin Q, policy_delay 2, target policy smoothing,
// Gaussian exploration noise). The Tune trainable "TD3": `rllib train --run TD3`.

#include "algorithms/ddpg/ddpg_trainable.h"

namespace {

struct TD3 : ray::rllib::DDPGTraits</*kTD3=*/true> {
  static constexpr char kName[] = "TD3";
};

}  // namespace

RAY_RLLIB_ALGORITHM(TD3);
