// PPO (Schulman et al. 2017, "Proximal Policy Optimization Algorithms",
// arXiv:1707.06347) as RLlib runs it: synchronous sampling by `num_workers` rollout
// workers (actors, each stepping `num_envs_per_worker` envs with batched inference),
// GAE on the workers, then minibatch SGD epochs on the trainer's policy, whose
// weights go back to the workers (one object put per iteration) before the next round.
//
// RLlib 0.7 runs PPO's step on its multi-GPU optimizer (LocalMultiGPUOptimizer:
// sample, standardise advantages, minibatch SGD epochs). Here the step is the
// SyncSamplesOptimizer with num_sgd_iter 1 and the minibatch epochs live in
// PPOPolicy::LearnOnBatch: the same update, on one CPU device.
//
// The trainer is the Tune trainable "PPO" (runtime/rllib/trainer/trainer.h):
// `rllib train` runs it as a Tune experiment, and `tune run ppo.so --run PPO --config
// '{"env": ...}'` searches over its config. `rllib rollout` runs this plugin as a job.

#include "algorithms/ppo/ppo_config.h"
#include "algorithms/ppo/ppo_policy.h"
#include "runtime/rllib/trainer/trainer.h"

namespace {

struct PPO {
  static constexpr char kName[] = "PPO";
  using Config = ray::rllib::PPOConfig;
  static ray::Result<Config> ParseConfig(const std::string& json) { return Config::FromJson(json); }
  static std::string ConfigJson(const Config& c) { return c.ToJson(); }
  static ray::Result<std::unique_ptr<ray::rllib::Policy>> MakePolicy(const ray::rllib::PolicySpec& spec,
                                                                    const Config& c) {
    RAY_ASSIGN_OR_RETURN(auto policy, ray::rllib::PPOPolicy::Create(spec, c));
    return std::unique_ptr<ray::rllib::Policy>(std::move(policy));
  }
  static ray::rllib::SyncSamplesOptions OptimizerOptions(const Config& c) {
    return {.train_batch_size = c.train_batch_size, .num_sgd_iter = 1, .microbatch_size = 0};
  }
};

}  // namespace

RAY_RLLIB_ALGORITHM(PPO);
