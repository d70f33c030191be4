// Learning tests (label "slow"): SAC, TD3 and DDPG in one process, no Ray: the real
// RolloutWorker on the built-in Pendulum-v1, SyncReplayOptimizer and the policy, as
// `rllib train --run SAC|TD3|DDPG` with num_workers 0 runs them. Each asserts a modest
// threshold within a small budget (fixed seed, small networks for speed): the greedy
// policy's mean return over 10 episodes reaches a level random play never does
// (random torques average about -1200 per 200-step episode; a policy that swings up
// and balances gets -150 to -400, depending on the start). The full targets are
// measured with share/tuned_examples/pendulum-*.yaml (README).

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <deque>
#include <numeric>

#include "algorithms/ddpg/ddpg_policy.h"
#include "algorithms/sac/sac_policy.h"
#include "runtime/rllib/env/vector_env.h"
#include "runtime/rllib/optimizers/sync_replay_optimizer.h"
#include "runtime/rllib/policy/torch_policy.h"
#include "runtime/rllib/rollout_worker.h"

namespace ray::rllib {
namespace {

constexpr int kEvalEpisodes = 10;

// The greedy policy's mean return over `episodes` Pendulum-v1 episodes.
double GreedyMeanReturn(Policy& policy, int episodes) {
  auto env = VectorEnv::Make("Pendulum-v1", 1);
  if (!env.ok()) throw std::runtime_error(env.status().ToString());
  std::vector<float> obs = (*env)->VectorReset(uint64_t{4242});
  VectorStepResult step;
  double total = 0;
  for (int done = 0; done < episodes;) {
    ActionBatch a = policy.ComputeActions(obs, /*explore=*/false);
    (*env)->VectorStep({Action::OfValues(a.actions)}, &step);
    total += step.rewards[0];
    obs = step.obs;
    if (step.done(0)) ++done;
  }
  return total / episodes;
}

// Trains `steps` env steps; returns the greedy mean return.
template <typename P, typename C>
double Train(const C& config, int64_t steps, const char* name) {
  SetTorchNumThreads(1);
  auto worker = RolloutWorker::Create(
      "Pendulum-v1", config, 0, [&](const PolicySpec& spec, std::optional<int64_t> seed) {
        C c = config;
        c.seed = seed;
        auto p = P::Create(spec, c);
        if (!p.ok()) return Result<std::unique_ptr<Policy>>(p.status());
        return Result<std::unique_ptr<Policy>>(std::unique_ptr<Policy>(std::move(*p)));
      });
  if (!worker.ok()) throw std::runtime_error(worker.status().ToString());
  RolloutWorker& w = **worker;
  SyncReplayOptimizer optimizer(
      [&w](int64_t t) {
        w.policy().OnGlobalVarUpdate(t);
        auto r = w.Sample();
        if (!r.ok()) throw std::runtime_error(r.status().ToString());
        return std::vector<SampleResult>{std::move(*r)};
      },
      &w.policy(), config.ReplayOptions());
  std::deque<double> window;
  double mean = 0;
  const auto start = std::chrono::steady_clock::now();
  while (optimizer.stats().num_steps_sampled < steps) {
    OptimizerStep step = optimizer.Step();
    for (double r : step.episode_returns) {
      window.push_back(r);
      if (window.size() > 10) window.pop_front();
    }
    mean = window.empty() ? 0 : std::accumulate(window.begin(), window.end(), 0.0) / window.size();
    const int64_t t = optimizer.stats().num_steps_sampled;
    if (t % 1000 == 0) std::printf("%s steps %6ld  mean return (10 episodes) %7.1f\n", name, static_cast<long>(t), mean);
  }
  const double greedy = GreedyMeanReturn(w.policy(), kEvalEpisodes);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%s after %ld steps: training mean %.1f, greedy mean return %.1f over %d episodes, %.1fs\n", name,
              static_cast<long>(optimizer.stats().num_steps_sampled), mean, greedy, kEvalEpisodes, wall);
  return greedy;
}

TEST(PendulumLearningTest, SACSwingsUp) {
  auto c = SACConfig::FromJson(R"({
    "seed": 1, "gamma": 0.99, "tau": 0.005, "train_batch_size": 64, "learning_starts": 256,
    "Q_model": {"hidden_layer_sizes": [64, 64]}, "policy_model": {"hidden_layer_sizes": [64, 64]},
    "optimization": {"actor_learning_rate": 0.001, "critic_learning_rate": 0.001, "entropy_learning_rate": 0.001}
  })");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_GE(Train<SACPolicy>(*c, 4000, "SAC"), -700.0);
}

TEST(PendulumLearningTest, TD3SwingsUp) {
  auto c = DDPGConfig::FromJson(R"({
    "seed": 1, "train_batch_size": 64, "learning_starts": 1000, "pure_exploration_steps": 1000,
    "actor_hiddens": [64, 64], "critic_hiddens": [64, 64], "tau": 0.01
  })", DDPGConfig::TD3Defaults());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_GE(Train<DDPGPolicy>(*c, 5000, "TD3"), -700.0);
}

TEST(PendulumLearningTest, DDPGSwingsUp) {
  auto c = DDPGConfig::FromJson(R"({
    "seed": 1, "train_batch_size": 64, "learning_starts": 500, "pure_exploration_steps": 500,
    "actor_hiddens": [64, 64], "critic_hiddens": [64, 64], "tau": 0.01, "prioritized_replay": false,
    "exploration_ou_noise_scale": 0.75, "exploration_should_anneal": true,
    "schedule_max_timesteps": 100000, "exploration_fraction": 0.1, "use_huber": true
  })");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_GE(Train<DDPGPolicy>(*c, 5000, "DDPG"), -700.0);
}

}  // namespace
}  // namespace ray::rllib
