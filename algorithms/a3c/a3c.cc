// A3C (asynchronous advantage actor-critic, Mnih et al. 2016, arXiv:1602.01783) as
// RLlib 0.7 runs it: each remote rollout worker samples a short fragment
// (sample_batch_size 10) with the weights it was last sent, computes the gradient of
// A3C's loss on it (GAE on the worker, a2c_policy.h), and the trainer applies the
// gradients one by one as they arrive, sending each worker fresh weights before its
// next fragment (AsyncGradientsOptimizer, grads_per_step per step). The Tune
// trainable "A3C": `rllib train --run A3C`.

#include "algorithms/a3c/a3c_config.h"
#include "runtime/rllib/trainer/trainer.h"

namespace {

struct A3C {
  static constexpr char kName[] = "A3C";
  using Config = ray::rllib::A3CConfig;
  static ray::Result<Config> ParseConfig(const std::string& json) { return Config::FromJson(json); }
  static std::string ConfigJson(const Config& c) { return c.ToJson(); }
  static ray::Result<std::unique_ptr<ray::rllib::Policy>> MakePolicy(
      const ray::rllib::PolicySpec& spec, const Config& c) {
    RAY_ASSIGN_OR_RETURN(auto policy, ray::rllib::A2CPolicy::Create(spec, c));
    return std::unique_ptr<ray::rllib::Policy>(std::move(policy));
  }
  static ray::rllib::AsyncGradientsOptions AsyncGradients(const Config& c) {
    return {.grads_per_step = c.grads_per_step};
  }
};

}  // namespace

RAY_RLLIB_ALGORITHM(A3C);
