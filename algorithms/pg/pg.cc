// PG (vanilla policy gradient, REINFORCE) as RLlib 0.7 runs it: rollout workers sample
// with the current weights (SyncSamplesOptimizer), each episode fragment's
// advantages are its discounted returns (pg_policy.h), and the trainer's policy takes
// one Adam step per train batch. The Tune trainable "PG": `rllib train --run PG`.

#include "algorithms/pg/pg_policy.h"
#include "runtime/rllib/trainer/trainer.h"

namespace {

struct PG {
  static constexpr char kName[] = "PG";
  using Config = ray::rllib::PGConfig;
  static ray::Result<Config> ParseConfig(const std::string& json) { return Config::FromJson(json); }
  static std::string ConfigJson(const Config& c) { return c.ToJson(); }
  static ray::Result<std::unique_ptr<ray::rllib::Policy>> MakePolicy(const ray::rllib::PolicySpec& spec,
                                                                    const Config& c) {
    RAY_ASSIGN_OR_RETURN(auto policy, ray::rllib::PGPolicy::Create(spec, c));
    return std::unique_ptr<ray::rllib::Policy>(std::move(policy));
  }
  static ray::rllib::SyncSamplesOptions OptimizerOptions(const Config& c) {
    return {.train_batch_size = c.train_batch_size, .num_sgd_iter = 1, .microbatch_size = 0};
  }
};

}  // namespace

RAY_RLLIB_ALGORITHM(PG);
