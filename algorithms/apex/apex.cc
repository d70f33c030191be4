// Ape-X DQN as RLlib 0.7 runs it (Horgan et al. 2018): num_workers rollout workers
// sample with their own epsilons and send their fragments, with each row's TD error,
// to replay shard actors; the learner thread trains the DQN policy (dqn_policy.h) on
// prioritized batches the shards replay and sends the TD errors back as priorities;
// the target network is updated every target_network_update_freq sampled steps
// (AsyncReplayOptimizer). The Tune trainable "APEX": `rllib train --run APEX`.

#include "algorithms/apex/apex_config.h"
#include "algorithms/dqn/dqn_policy.h"
#include "runtime/rllib/trainer/trainer.h"

namespace {

struct APEX {
  static constexpr char kName[] = "APEX";
  using Config = ray::rllib::ApexConfig;
  static ray::Result<Config> ParseConfig(const std::string& json) { return Config::FromJson(json); }
  static std::string ConfigJson(const Config& c) { return c.ToJson(); }
  static ray::Result<std::unique_ptr<ray::rllib::Policy>> MakePolicy(const ray::rllib::PolicySpec& spec,
                                                                    const Config& c) {
    RAY_ASSIGN_OR_RETURN(auto policy, ray::rllib::DQNPolicy::Create(spec, c));
    return std::unique_ptr<ray::rllib::Policy>(std::move(policy));
  }
  static ray::rllib::AsyncReplayOptions AsyncReplay(const Config& c) { return c.AsyncReplay(); }
  static void ForWorker(Config* c, int worker_index) { c->ForWorker(worker_index); }
};

}  // namespace

RAY_RLLIB_ALGORITHM(APEX);
