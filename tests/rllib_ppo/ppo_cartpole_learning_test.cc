// Learning test (label "slow"): single-process PPO, no Ray, on the private CartPole-v1
// transcription in ppo_test_util.h. Asserts Gymnasium's "solved" threshold: the mean
// return of the last 100 episodes (RLlib's episode_reward_mean with
// metrics_smoothing_episodes = 100) reaches 475 within 100k env steps, fixed seed.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "algorithms/ppo/ppo_policy.h"
#include "tests/rllib_ppo/ppo_test_util.h"

namespace ray::rllib {
namespace {

constexpr int kNumEnvs = 16;
constexpr int64_t kMaxSteps = 100000;
constexpr double kTarget = 475.0;

// Tuned for CartPole-v1. GAE gamma 0.99 / lambda 0.95 as CleanRL; lr linearly annealed
// from 3e-3 to 0 over 100k steps (CleanRL and SB3-zoo anneal too); 1024-step batches
// (16 envs x 64), 10 epochs of 256-sample minibatches; no KL penalty, no entropy bonus;
// separate [64, 64] tanh value net. vf_clip_param is raised so the clamped squared
// value error (RLlib clips the squared error) does not zero the value gradient for
// returns of O(100). Sweep on this machine: seeds 1-11 all reached 475 at 57k-66k
// steps; constant lr 1e-3 (with or without grad_clip 0.5, batch 512 or 1024,
// 10 or 20 epochs) and lr 1e-3 annealed missed 475 by 100k on 1-2 of 3-5 seeds.
constexpr char kTunedConfig[] = R"({
  "gamma": 0.99, "lambda": 0.95,
  "lr": 0.003, "lr_schedule": [[0, 0.003], [100000, 0.0]],
  "train_batch_size": 1024, "sgd_minibatch_size": 256, "num_sgd_iter": 10,
  "clip_param": 0.2, "vf_clip_param": 10000.0, "vf_loss_coeff": 0.5,
  "kl_coeff": 0.0, "entropy_coeff": 0.0,
  "model": {"fcnet_hiddens": [64, 64], "fcnet_activation": "tanh",
            "vf_share_layers": false},
  "seed": 1
})";

TEST(PPOCartPoleLearningTest, SolvesCartPoleWithin100kSteps) {
  SetTorchNumThreads(1);
  auto config = PPOConfig::FromJson(kTunedConfig);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  auto policy = PPOPolicy::Create({ppo_testing::CartPole::kObsDim, ppo_testing::CartPole::kNumActions,
                                   /*discrete=*/true},
                                  *config);
  ASSERT_TRUE(policy.ok()) << policy.status().ToString();

  auto result = ppo_testing::TrainCartPole(
      **policy, kNumEnvs, kMaxSteps, kTarget, /*seed=*/*config->seed,
      [](int iter, int64_t steps, double mean, const LearnerStats& s) {
        if (iter % 10 == 0) {
          std::printf("iter %3d  steps %6ld  episode_reward_mean %6.1f  kl %.4f  entropy %.3f"
                      "  vf_explained_var %.2f\n",
                      iter, static_cast<long>(steps), mean, s.at("kl"), s.at("entropy"),
                      s.at("vf_explained_var"));
        }
      });
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  const ppo_testing::TrainResult& r = *result;
  std::printf(
      "solved=%d steps_to_475=%ld timesteps_total=%ld episode_reward_mean=%.1f wall=%.1fs "
      "(sampling %.1fs = %.0f env steps/s incl. batched inference; learning %.1fs)\n",
      r.solved, static_cast<long>(r.steps_to_target), static_cast<long>(r.timesteps_total),
      r.episode_reward_mean, r.wall_s, r.sample_s, r.timesteps_total / r.sample_s, r.learn_s);
  RecordProperty("steps_to_target", std::to_string(r.steps_to_target));
  RecordProperty("wall_s", std::to_string(r.wall_s));
  RecordProperty("sample_steps_per_s", std::to_string(r.timesteps_total / r.sample_s));
  EXPECT_TRUE(r.solved) << "episode_reward_mean " << r.episode_reward_mean << " after "
                        << r.timesteps_total << " steps (best " << r.best_episode_reward_mean
                        << ")";
  EXPECT_LE(r.steps_to_target, kMaxSteps);
}

// Batched inference throughput: ComputeActions on kNumEnvs observations at a time.
TEST(PPOCartPoleLearningTest, BatchedInferenceThroughput) {
  SetTorchNumThreads(1);
  auto config = PPOConfig::FromJson(kTunedConfig);
  ASSERT_TRUE(config.ok());
  auto policy = PPOPolicy::Create({4, 2, true}, *config);
  ASSERT_TRUE(policy.ok());
  std::vector<float> obs(kNumEnvs * 4, 0.01f);
  constexpr int kCalls = 2000;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kCalls; ++i) (*policy)->ComputeActions(obs);
  const double s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("batched inference: %d x %d obs in %.3fs = %.0f obs/s (%.1f us per call)\n", kCalls,
              kNumEnvs, s, kCalls * kNumEnvs / s, 1e6 * s / kCalls);
  RecordProperty("inference_obs_per_s", std::to_string(kCalls * kNumEnvs / s));
}

}  // namespace
}  // namespace ray::rllib
