// Ape-X DDPG as RLlib 0.7 runs it: DDPG's policy (algorithms/ddpg) on Ape-X's
// AsyncReplayOptimizer. Rollout workers sample with their own noise scales and send
// their fragments, with each row's TD error, to replay shard actors; the learner
// thread trains on prioritized replays and sends the TD errors back; the target
// networks follow (by tau) every target_network_update_freq sampled steps. The Tune
// trainable "APEX_DDPG": `rllib train --run APEX_DDPG`.

#include "algorithms/apex_ddpg/apex_ddpg_config.h"
#include "algorithms/ddpg/ddpg_policy.h"
#include "runtime/rllib/trainer/trainer.h"

namespace {

struct APEX_DDPG {
  static constexpr char kName[] = "APEX_DDPG";
  using Config = ray::rllib::ApexDDPGConfig;
  static ray::Result<Config> ParseConfig(const std::string& json) { return Config::FromJson(json); }
  static std::string ConfigJson(const Config& c) { return c.ToJson(); }
  static ray::Result<std::unique_ptr<ray::rllib::Policy>> MakePolicy(const ray::rllib::PolicySpec& spec,
                                                                    const Config& c) {
    RAY_ASSIGN_OR_RETURN(auto policy, ray::rllib::DDPGPolicy::Create(spec, c));
    return std::unique_ptr<ray::rllib::Policy>(std::move(policy));
  }
  static ray::rllib::AsyncReplayOptions AsyncReplay(const Config& c) { return c.AsyncReplay(); }
  static void ForWorker(Config* c, int worker_index) { c->ForWorker(worker_index); }
};

}  // namespace

RAY_RLLIB_ALGORITHM(APEX_DDPG);
