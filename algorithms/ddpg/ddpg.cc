// DDPG as RLlib 0.7 runs it (GenericOffPolicyTrainer): the trainer's rollout worker
// (or num_workers actors) samples sample_batch_size steps per env with exploration
// noise into a replay buffer, and SyncReplayOptimizer takes one learn step on
// train_batch_size replayed rows per sampling round once learning_starts steps were
// sampled, the target networks following by tau after each. The Tune trainable
// "DDPG": `rllib train --run DDPG`.

#include "algorithms/ddpg/ddpg_trainable.h"

namespace {

struct DDPG : ray::rllib::DDPGTraits</*kTD3=*/false> {
  static constexpr char kName[] = "DDPG";
};

}  // namespace

RAY_RLLIB_ALGORITHM(DDPG);
