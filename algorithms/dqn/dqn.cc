// DQN as RLlib 0.7 runs it: the trainer's rollout worker (or num_workers actors)
// samples sample_batch_size steps per env with epsilon-greedy exploration into a
// replay buffer, and SyncReplayOptimizer trains the policy on train_batch_size
// replayed rows per step once learning_starts steps were sampled, updating the target
// network every target_network_update_freq steps (dqn_policy.h). The Tune trainable
// "DQN": `rllib train --run DQN`.

#include "algorithms/dqn/dqn_policy.h"
#include "runtime/rllib/trainer/trainer.h"

namespace {

struct DQN {
  static constexpr char kName[] = "DQN";
  using Config = ray::rllib::DQNConfig;
  static ray::Result<Config> ParseConfig(const std::string& json) { return Config::FromJson(json); }
  static std::string ConfigJson(const Config& c) { return c.ToJson(); }
  static ray::Result<std::unique_ptr<ray::rllib::Policy>> MakePolicy(const ray::rllib::PolicySpec& spec,
                                                                    const Config& c) {
    RAY_ASSIGN_OR_RETURN(auto policy, ray::rllib::DQNPolicy::Create(spec, c));
    return std::unique_ptr<ray::rllib::Policy>(std::move(policy));
  }
  static ray::rllib::SyncReplayOptions ReplayOptions(const Config& c) { return c.ReplayOptions(); }
};

}  // namespace

RAY_RLLIB_ALGORITHM(DQN);
