// Learning test (label "slow"): DQN in one process, no Ray: the real RolloutWorker on
// the built-in CartPole-v1, SyncReplayOptimizer and DQNPolicy, as `rllib train --run
// DQN` with num_workers 0 runs them. Asserts modest thresholds within a small budget,
// over seeds 1, 2 and 3: after 30k env steps the greedy policy's mean return over 20
// episodes is at least 200 on average, and at least 50 on each seed (a random policy
// gets about 22; CartPole-v1's cap is 500). One seed's figure moves a lot with the
// machine's floating-point kernels (seed 1 gave 71 on one machine and over 300 on
// another), so no single seed is asserted high. The full target is measured
// with share/tuned_examples/cartpole-dqn.yaml and tests/bench/rllib_learning_bench.sh
// (README). The config is the tuned example's with smaller layers, for speed.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <deque>
#include <numeric>

#include <nlohmann/json.hpp>

#include "algorithms/dqn/dqn_policy.h"
#include "runtime/rllib/optimizers/sync_replay_optimizer.h"
#include "runtime/rllib/policy/torch_policy.h"
#include "runtime/rllib/env/vector_env.h"
#include "runtime/rllib/rollout_worker.h"

namespace ray::rllib {
namespace {

constexpr int64_t kSteps = 30000;
constexpr int kEvalEpisodes = 20;
constexpr double kMeanThreshold = 200.0;
constexpr double kEachThreshold = 50.0;

constexpr char kConfig[] = R"({
  "gamma": 0.99, "lr": 0.0023,
  "train_batch_size": 64, "sample_batch_size": 2,
  "buffer_size": 50000, "learning_starts": 1000, "prioritized_replay": false,
  "target_network_update_freq": 256,
  "schedule_max_timesteps": 50000, "exploration_fraction": 0.16, "exploration_final_eps": 0.04,
  "dueling": true, "double_q": true, "n_step": 1, "hiddens": [64],
  "model": {"fcnet_hiddens": [64], "fcnet_activation": "relu"}
})";

// The greedy policy's mean return over `episodes` CartPole-v1 episodes.
double GreedyMeanReturn(Policy& policy, int episodes) {
  auto env = VectorEnv::Make("CartPole-v1", 1);
  if (!env.ok()) throw std::runtime_error(env.status().ToString());
  std::vector<float> obs = (*env)->VectorReset(uint64_t{12345});
  VectorStepResult step;
  double total = 0;
  for (int done = 0; done < episodes;) {
    ActionBatch a = policy.ComputeActions(obs, /*explore=*/false);
    (*env)->VectorStep({Action::OfIndex(static_cast<int64_t>(a.actions[0]))}, &step);
    total += step.rewards[0];
    obs = step.obs;
    if (step.done(0)) ++done;
  }
  return total / episodes;
}

// Trains with `seed` for kSteps env steps; the greedy policy's mean return then.
double TrainAndEvaluate(int seed) {
  auto json = nlohmann::json::parse(kConfig);
  json["seed"] = seed;
  auto config = DQNConfig::FromJson(json.dump());
  if (!config.ok()) throw std::runtime_error(config.status().ToString());
  auto worker = RolloutWorker::Create(
      "CartPole-v1", *config, 0, [&](const PolicySpec& spec, std::optional<int64_t> seed) {
        DQNConfig c = *config;
        c.seed = seed;
        auto p = DQNPolicy::Create(spec, c);
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
      &w.policy(), config->ReplayOptions());
  std::deque<double> window;
  double mean = 0;
  const auto start = std::chrono::steady_clock::now();
  while (optimizer.stats().num_steps_sampled < kSteps) {
    OptimizerStep step = optimizer.Step();
    for (double r : step.episode_returns) {
      window.push_back(r);
      if (window.size() > 100) window.pop_front();
    }
    mean = window.empty() ? 0 : std::accumulate(window.begin(), window.end(), 0.0) / window.size();
    const int64_t t = optimizer.stats().num_steps_sampled;
    if (t % 5000 == 0) {
      std::printf("seed %d steps %6ld  episode_reward_mean %6.1f\n", seed, static_cast<long>(t), mean);
    }
  }
  const double greedy = GreedyMeanReturn(w.policy(), kEvalEpisodes);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("seed %d after %ld steps: episode_reward_mean %.1f, greedy mean return %.1f over %d "
              "episodes, %.1fs\n",
              seed, static_cast<long>(optimizer.stats().num_steps_sampled), mean, greedy,
              kEvalEpisodes, wall);
  return greedy;
}

TEST(DQNCartPoleLearningTest, GreedyPolicyBalancesAfter30kStepsOverThreeSeeds) {
  SetTorchNumThreads(1);
  double sum = 0;
  for (int seed = 1; seed <= 3; ++seed) {
    const double greedy = TrainAndEvaluate(seed);
    RecordProperty("greedy_mean_return_seed_" + std::to_string(seed), std::to_string(greedy));
    EXPECT_GE(greedy, kEachThreshold) << "seed " << seed;
    sum += greedy;
  }
  EXPECT_GE(sum / 3, kMeanThreshold);
}

}  // namespace
}  // namespace ray::rllib
