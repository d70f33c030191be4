// APPO (asynchronous PPO, RLlib 0.7's APPO): IMPALA's pipeline (remote rollout workers
// sampling continuously, the AsyncSamplesOptimizer's learner thread) with PPO's
// clipped surrogate loss over GAE advantages, or over V-trace's with `vtrace: true`
// (appo_policy.h). The Tune trainable "APPO": `rllib train --run APPO`.

#include "algorithms/appo/appo_policy.h"
#include "algorithms/impala/impala_optimizer.h"
#include "runtime/rllib/trainer/trainer.h"

namespace {

struct APPO {
  static constexpr char kName[] = "APPO";
  using Config = ray::rllib::APPOConfig;
  static ray::Result<Config> ParseConfig(const std::string& json) { return Config::FromJson(json); }
  static std::string ConfigJson(const Config& c) { return c.ToJson(); }
  static ray::Result<std::unique_ptr<ray::rllib::Policy>> MakePolicy(
      const ray::rllib::PolicySpec& spec, const Config& c) {
    RAY_ASSIGN_OR_RETURN(auto policy, ray::rllib::APPOPolicy::Create(spec, c));
    return std::unique_ptr<ray::rllib::Policy>(std::move(policy));
  }
  static ray::rllib::AsyncSamplesOptions AsyncSamples(const Config& c) {
    return ray::rllib::ImpalaOptimizerOptions(c);
  }
};

}  // namespace

RAY_RLLIB_ALGORITHM(APPO);
