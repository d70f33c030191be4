// Learning test (label "slow"): ES and ARS in one process, no Ray: the real
// EvolutionWorker on the built-in CartPole-v1, the ES and ARS gradient estimates and
// their optimizers, iterated as EvolutionTrainer::Step does (one worker, so its filter
// is the trainer's). Asserts, under a fixed seed and a small budget, that the
// unperturbed policy's mean return over 20 episodes rises well above a random policy's
// (about 22): at least 200. The full target (475 within 500k steps) is measured with
// share/tuned_examples/cartpole-{es,ars}.yaml and tests/bench/rllib_learning_bench.sh.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <functional>

#include "algorithms/es/es_gradient.h"
#include "algorithms/es/evolution_worker.h"
#include "algorithms/es/flat_optimizer.h"
#include "algorithms/es/noise_table.h"

namespace ray::rllib {
namespace {

constexpr double kThreshold = 200.0;

using Direction = std::function<std::vector<float>(const std::vector<PerturbedPair>&, const NoiseTable&,
                                                   const std::vector<float>& theta)>;

// The mean return of `episodes` unperturbed episodes with theta behind the frozen filter.
double MeanReturn(const EvolutionWorkerOptions& o, const std::vector<float>& theta, const FilterState& filter,
                  int episodes) {
  auto env = MakeEvolutionEnv(o, 0);
  if (!env.ok()) throw std::runtime_error(env.status().ToString());
  auto policy = FlatPolicy::Create((*env)->observation_space(), (*env)->action_space(), o.hiddens, o.activation);
  if (!policy.ok() || !policy->SetWeights(theta).ok()) throw std::runtime_error("policy");
  MeanStdFilter f(static_cast<size_t>(policy->obs_size()));
  if (!f.SyncFrom(filter).ok()) throw std::runtime_error("filter");
  double total = 0;
  for (int e = 0; e < episodes; ++e) {
    Observation obs = (*env)->Reset(e == 0 ? std::optional<uint64_t>(777) : std::nullopt);
    for (bool done = false; !done;) {
      f.Apply(obs.data(), false);
      StepResult s = (*env)->Step(policy->Compute(obs.data()));
      total += s.reward;
      done = s.terminated || s.truncated;
      obs = std::move(s.obs);
    }
  }
  return total / episodes;
}

// Trains for `max_steps` env steps (or until the 5-iteration running evaluation is
// 475) and returns the final policy's mean return over 20 episodes.
double Train(const EvolutionWorkerOptions& o, std::unique_ptr<FlatOptimizer> optimizer, int64_t pairs_per_iter,
             int64_t max_steps, const Direction& direction) {
  const std::string bytes = MakeNoiseBytes(1000000);
  NoiseTable noise(bytes.data(), bytes.size());
  auto worker = EvolutionWorker::Create(o, noise, 1);
  if (!worker.ok()) throw std::runtime_error(worker.status().ToString());
  auto env = MakeEvolutionEnv(o, 0);
  auto policy = FlatPolicy::Create((*env)->observation_space(), (*env)->action_space(), o.hiddens, o.activation);
  std::vector<float> theta = policy->InitialWeights(static_cast<uint64_t>(o.seed));
  const auto start = std::chrono::steady_clock::now();
  int64_t steps = 0;
  int iteration = 0;
  while (steps < max_steps) {
    auto batch = (*worker)->DoRollouts(theta, pairs_per_iter);
    if (!batch.ok()) throw std::runtime_error(batch.status().ToString());
    for (const auto& p : batch->pairs) steps += p.length_pos + p.length_neg;
    theta = optimizer->Update(theta, direction(batch->pairs, noise, theta), nullptr);
    if (++iteration % 10 == 0) {
      double r = MeanReturn(o, theta, (*worker)->GetFilters(false), 5);
      std::printf("iteration %d, %lld steps: mean return %.1f\n", iteration, static_cast<long long>(steps), r);
      if (r >= 475) break;
    }
  }
  const double result = MeanReturn(o, theta, (*worker)->GetFilters(false), 20);
  std::printf("%lld steps, %.1f s: final mean return over 20 episodes %.1f\n", static_cast<long long>(steps),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), result);
  return result;
}

EvolutionWorkerOptions CartPole(std::vector<int> hiddens) {
  EvolutionWorkerOptions o;
  o.env = "CartPole-v1";
  o.hiddens = std::move(hiddens);
  o.activation = "tanh";
  o.eval_prob = 0;
  o.seed = 1;
  return o;
}

TEST(EvolutionLearningTest, ESLearnsCartPole) {
  EvolutionWorkerOptions o = CartPole({16});
  o.noise_stdev = 0.1;
  const double l2_coeff = 0.005;
  double r = Train(o, MakeAdam(16 * 4 + 16 + 2 * 16 + 2, 0.05), 10, 150000,
                   [&](const std::vector<PerturbedPair>& pairs, const NoiseTable& noise, const std::vector<float>& theta) {
                     std::vector<float> g = EsGradient(pairs, noise, static_cast<int64_t>(theta.size()));
                     for (size_t i = 0; i < g.size(); ++i) g[i] = static_cast<float>(-g[i] + l2_coeff * theta[i]);
                     return g;
                   });
  EXPECT_GE(r, kThreshold);
}

TEST(EvolutionLearningTest, ARSLearnsCartPoleWithALinearPolicy) {
  EvolutionWorkerOptions o = CartPole({});
  o.noise_stdev = 0.05;
  double r = Train(o, MakeSgd(0.05), 8, 150000,
                   [&](const std::vector<PerturbedPair>& pairs, const NoiseTable& noise, const std::vector<float>& theta) {
                     std::vector<float> g = ArsGradient(pairs, noise, static_cast<int64_t>(theta.size()), 4, 8);
                     for (float& v : g) v = -v;
                     return g;
                   });
  EXPECT_GE(r, kThreshold);
}

}  // namespace
}  // namespace ray::rllib
