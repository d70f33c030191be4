// SAC as RLlib 0.7 runs it (GenericOffPolicyTrainer): the trainer's rollout worker
// (or num_workers actors) samples sample_batch_size steps per env with the stochastic
// policy into a replay buffer, and SyncReplayOptimizer takes one learn step on
// train_batch_size replayed rows per sampling round once learning_starts steps were
// sampled, the target critics following by tau after each (target_network_update_freq
// 0). The Tune trainable "SAC": `rllib train --run SAC`.

#include "algorithms/sac/sac_policy.h"
#include "runtime/rllib/trainer/trainer.h"

namespace {

struct SAC {
  static constexpr char kName[] = "SAC";
  using Config = ray::rllib::SACConfig;
  static ray::Result<Config> ParseConfig(const std::string& json) { return Config::FromJson(json); }
  static std::string ConfigJson(const Config& c) { return c.ToJson(); }
  static ray::Result<std::unique_ptr<ray::rllib::Policy>> MakePolicy(const ray::rllib::PolicySpec& spec,
                                                                    const Config& c) {
    RAY_ASSIGN_OR_RETURN(auto policy, ray::rllib::SACPolicy::Create(spec, c));
    return std::unique_ptr<ray::rllib::Policy>(std::move(policy));
  }
  static ray::rllib::SyncReplayOptions ReplayOptions(const Config& c) { return c.ReplayOptions(); }
};

}  // namespace

RAY_RLLIB_ALGORITHM(SAC);
