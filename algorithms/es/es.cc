// ES (evolution strategies; Salimans, Ho, Chen, Sidor and Sutskever 2017, "Evolution
// Strategies as a Scalable Alternative to Reinforcement Learning") as RLlib 0.7's
// ESTrainer: rollout actors evaluate antithetic perturbations of the policy's flat
// weights drawn from a noise table shared through the object store; the trainer turns
// the returns into centered ranks and steps Adam along -g + l2_coeff * theta
// (es_gradient.h, evolution_trainer.h). The Tune trainable "ES": `rllib train --run ES`.

#include "algorithms/es/evolution_trainer.h"

namespace {

struct ES {
  static constexpr char kName[] = "ES";
  using Config = ray::rllib::ESConfig;
  static ray::Result<Config> ParseConfig(const std::string& json) { return Config::FromJson(json); }
  static std::string ConfigJson(const Config& c) { return c.ToJson(); }
  static ray::rllib::EvolutionWorkerOptions WorkerOptions(const Config& c) {
    return ray::rllib::evolution::SharedWorkerOptions(c);
  }
  static std::unique_ptr<ray::rllib::FlatOptimizer> MakeOptimizer(const Config& c, size_t dim) {
    return ray::rllib::MakeAdam(dim, c.stepsize);
  }
  static int64_t MinEpisodes(const Config& c) { return c.episodes_per_batch; }
  static int64_t MinTimesteps(const Config& c) { return c.train_batch_size; }
  static std::vector<float> Direction(const Config& c, const std::vector<ray::rllib::PerturbedPair>& pairs,
                                      const ray::rllib::NoiseTable& noise, const std::vector<float>& theta) {
    std::vector<float> g = ray::rllib::EsGradient(pairs, noise, static_cast<int64_t>(theta.size()));
    for (size_t i = 0; i < g.size(); ++i) g[i] = static_cast<float>(-g[i] + c.l2_coeff * theta[i]);
    return g;
  }
};

}  // namespace

RAY_EVOLUTION_ALGORITHM(ES);
