// A2C (synchronous advantage actor-critic, a2c_policy.h) as RLlib 0.7 runs it: rollout
// workers sample short fragments (sample_batch_size 20) with the current weights,
// GAE on the workers, then one gradient step of the summed actor-critic loss per
// train batch (SyncSamplesOptimizer; with microbatch_size, gradients accumulated over
// microbatches). The Tune trainable "A2C": `rllib train --run A2C`.

#include "algorithms/a2c/a2c_policy.h"
#include "runtime/rllib/trainer/trainer.h"

namespace {

struct A2C {
  static constexpr char kName[] = "A2C";
  using Config = ray::rllib::A2CConfig;
  static ray::Result<Config> ParseConfig(const std::string& json) { return Config::FromJson(json); }
  static std::string ConfigJson(const Config& c) { return c.ToJson(); }
  static ray::Result<std::unique_ptr<ray::rllib::Policy>> MakePolicy(const ray::rllib::PolicySpec& spec,
                                                                    const Config& c) {
    RAY_ASSIGN_OR_RETURN(auto policy, ray::rllib::A2CPolicy::Create(spec, c));
    return std::unique_ptr<ray::rllib::Policy>(std::move(policy));
  }
  static ray::rllib::SyncSamplesOptions OptimizerOptions(const Config& c) {
    return {.train_batch_size = c.train_batch_size, .num_sgd_iter = 1,
            .microbatch_size = c.microbatch_size.value_or(0)};
  }
};

}  // namespace

RAY_RLLIB_ALGORITHM(A2C);
