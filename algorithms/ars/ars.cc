// ARS (augmented random search; Mania, Guy and Recht 2018, "Simple random search
// provides a competitive approach to reinforcement learning") as RLlib 0.7's
// ARSTrainer: ES's rollout actors and shared noise table, but only the best
// rollouts_used / num_rollouts of the antithetic pairs (by their better return) enter
// the update, their return differences are scaled by the kept returns' standard
// deviation, and the step is plain SGD with sgd_stepsize (es_gradient.h). A linear
// policy with policy_type: LinearPolicy. The Tune trainable "ARS": `rllib train --run ARS`.

#include "algorithms/ars/ars_config.h"
#include "algorithms/es/evolution_trainer.h"

namespace {

struct ARS {
  static constexpr char kName[] = "ARS";
  using Config = ray::rllib::ARSConfig;
  static ray::Result<Config> ParseConfig(const std::string& json) { return Config::FromJson(json); }
  static std::string ConfigJson(const Config& c) { return c.ToJson(); }
  static ray::rllib::EvolutionWorkerOptions WorkerOptions(const Config& c) {
    auto o = ray::rllib::evolution::SharedWorkerOptions(c);
    if (c.policy_type == "LinearPolicy") o.hiddens.clear();
    o.offset = c.offset;
    return o;
  }
  static std::unique_ptr<ray::rllib::FlatOptimizer> MakeOptimizer(const Config& c, size_t) {
    return ray::rllib::MakeSgd(c.sgd_stepsize);
  }
  static int64_t MinEpisodes(const Config& c) { return c.num_rollouts; }
  static int64_t MinTimesteps(const Config&) { return 0; }
  static std::vector<float> Direction(const Config& c, const std::vector<ray::rllib::PerturbedPair>& pairs,
                                      const ray::rllib::NoiseTable& noise, const std::vector<float>& theta) {
    std::vector<float> g = ray::rllib::ArsGradient(pairs, noise, static_cast<int64_t>(theta.size()),
                                                   c.rollouts_used, c.num_rollouts);
    for (float& v : g) v = -v;
    return g;
  }
};

}  // namespace

RAY_EVOLUTION_ALGORITHM(ARS);
