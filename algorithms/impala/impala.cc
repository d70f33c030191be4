// IMPALA (Espeholt et al. 2018, arXiv:1802.01561) as RLlib 0.7 runs it: remote
// rollout workers sample continuously (max_sample_requests_in_flight_per_worker
// requests each) with the weights last broadcast to them; the trainer gathers their
// fragments into train_batch_size batches for a learner thread that corrects for
// the policy lag with V-trace (impala_policy.h) and takes one Adam step per batch
// (AsyncSamplesOptimizer). The Tune trainable "IMPALA": `rllib train --run IMPALA`.

#include "algorithms/impala/impala_optimizer.h"
#include "algorithms/impala/impala_policy.h"
#include "runtime/rllib/trainer/trainer.h"

namespace {

struct IMPALA {
  static constexpr char kName[] = "IMPALA";
  using Config = ray::rllib::IMPALAConfig;
  static ray::Result<Config> ParseConfig(const std::string& json) { return Config::FromJson(json); }
  static std::string ConfigJson(const Config& c) { return c.ToJson(); }
  static ray::Result<std::unique_ptr<ray::rllib::Policy>> MakePolicy(
      const ray::rllib::PolicySpec& spec, const Config& c) {
    RAY_ASSIGN_OR_RETURN(auto policy, ray::rllib::IMPALAPolicy::Create(spec, c));
    return std::unique_ptr<ray::rllib::Policy>(std::move(policy));
  }
  static ray::rllib::AsyncSamplesOptions AsyncSamples(const Config& c) {
    return ray::rllib::ImpalaOptimizerOptions(c);
  }
};

}  // namespace

RAY_RLLIB_ALGORITHM(IMPALA);
