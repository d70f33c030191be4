// Ape-X's config (RLlib 0.7's APEX defaults over DQN's, its own keys and refusals),
// the per-worker epsilons, and the DQN policy's TD errors for worker-side priorities.
#include "algorithms/apex/apex_config.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "algorithms/apex_ddpg/apex_ddpg_config.h"
#include "algorithms/ddpg/ddpg_policy.h"
#include "algorithms/dqn/dqn_policy.h"

namespace ray::rllib {
namespace {

ApexConfig Config(const std::string& json = "{}") {
  auto c = ApexConfig::FromJson(json);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return *c;
}

std::string Refusal(const std::string& json) {
  auto c = ApexConfig::FromJson(json);
  return c.ok() ? "" : c.status().message();
}

TEST(ApexConfigTest, DefaultsAreRLlibsApexOverDQN) {
  ApexConfig c = Config();
  EXPECT_EQ(c.replay.n_step, 3);
  EXPECT_EQ(c.num_workers, 32);
  EXPECT_EQ(c.replay.buffer_size, 2000000);
  EXPECT_EQ(c.replay.learning_starts, 50000);
  EXPECT_EQ(c.train_batch_size, 512);
  EXPECT_EQ(c.sample_batch_size, 50);
  EXPECT_EQ(c.replay.target_network_update_freq, 500000);
  EXPECT_EQ(c.timesteps_per_iteration, 25000);
  EXPECT_EQ(c.min_iter_time_s, 30);
  EXPECT_TRUE(c.apex.per_worker_exploration);
  EXPECT_TRUE(c.apex.worker_side_prioritization);
  EXPECT_EQ(c.apex.max_weight_sync_delay, 400);
  EXPECT_EQ(c.apex.num_replay_buffer_shards, 4);
  EXPECT_FALSE(c.apex.training_intensity);
  EXPECT_TRUE(c.dueling);  // DQN's keys stay
  AsyncReplayOptions o = Config(R"({"seed": 3, "optimizer": {"num_replay_buffer_shards": 2},
                                    "training_intensity": 8})").AsyncReplay();
  EXPECT_EQ(o.num_replay_buffer_shards, 2);
  EXPECT_EQ(o.train_batch_size, 512);
  EXPECT_EQ(o.seed, 3u);
  EXPECT_EQ(o.training_intensity, 8.0);
  // The config round-trips through its JSON.
  ApexConfig again = Config(Config(R"({"num_workers": 3})").ToJson());
  EXPECT_EQ(again.num_workers, 3);
  EXPECT_EQ(again.replay.n_step, 3);
}

TEST(ApexConfigTest, EachWorkerExploresWithItsOwnConstantEpsilon) {
  for (int i : {1, 2, 4}) {
    ApexConfig c = Config(R"({"num_workers": 4})");
    c.ForWorker(i);
    ASSERT_TRUE(c.fixed_epsilon);
    EXPECT_NEAR(*c.fixed_epsilon, std::pow(0.4, 1 + i / 3.0 * 7), 1e-12) << i;
    EXPECT_EQ(c.EpsilonAt(0), *c.fixed_epsilon);
    EXPECT_EQ(c.EpsilonAt(1000000), *c.fixed_epsilon);
  }
  ApexConfig learner = Config(R"({"num_workers": 4})");
  learner.ForWorker(0);
  EXPECT_FALSE(learner.fixed_epsilon);
  ApexConfig annealed = Config(R"({"num_workers": 4, "per_worker_exploration": false})");
  annealed.ForWorker(2);
  EXPECT_FALSE(annealed.fixed_epsilon);
  EXPECT_EQ(annealed.EpsilonAt(0), 1.0);
}

TEST(ApexConfigTest, RefusesWhatItCannotDoByName) {
  EXPECT_NE(Refusal(R"({"num_workers": 0})").find("'num_workers'"), std::string::npos);
  EXPECT_NE(Refusal(R"({"num_workers": 1})").find("'per_worker_exploration'"), std::string::npos);
  EXPECT_TRUE(Refusal(R"({"num_workers": 1, "per_worker_exploration": false})").empty());
  EXPECT_NE(Refusal(R"({"prioritized_replay": false})").find("'prioritized_replay'"), std::string::npos);
  EXPECT_NE(Refusal(R"({"final_prioritized_replay_beta": 1.0})").find("beta is not annealed"), std::string::npos);
  EXPECT_NE(Refusal(R"({"optimizer": {"num_replay_buffer_shards": 0}})").find("num_replay_buffer_shards"),
            std::string::npos);
  EXPECT_NE(Refusal(R"({"optimizer": {"debug": true}})").find("optimizer.debug"), std::string::npos);
  EXPECT_NE(Refusal(R"({"optimizer": {"bogus": 1}})").find("optimizer.bogus"), std::string::npos);
  EXPECT_NE(Refusal(R"({"training_intensity": 0})").find("training_intensity"), std::string::npos);
}

TEST(ApexConfigTest, WorkerSideTDErrorsAreTheLearnersBeforeItsStep) {
  ApexConfig c = Config(R"({"num_workers": 2, "seed": 1, "hiddens": [8], "model": {"fcnet_hiddens": [8]}})");
  auto policy = std::move(DQNPolicy::Create({3, 2, true}, c)).value();
  SampleBatch b;
  b.obs_dim = 3;
  std::mt19937_64 rng(5);
  std::normal_distribution<float> g;
  for (int i = 0; i < 16; ++i) {
    for (int k = 0; k < 3; ++k) {
      b.obs.push_back(g(rng));
      b.new_obs.push_back(g(rng));
    }
    b.actions.push_back(static_cast<float>(i % 2));
    b.rewards.push_back(g(rng));
    b.terminateds.push_back(i % 5 == 4);
    b.truncateds.push_back(0);
    b.action_logp.push_back(0);
    b.eps_id.push_back(0);
  }
  const std::vector<float> before = policy->GetWeights();
  const std::vector<float> td = policy->ComputeTDErrors(b);
  EXPECT_EQ(policy->GetWeights(), before) << "computing TD errors does not learn";
  policy->LearnOnBatch(b);
  const std::vector<float> learned = policy->LastTDErrors();
  ASSERT_EQ(td.size(), learned.size());
  for (size_t i = 0; i < td.size(); ++i) EXPECT_NEAR(td[i], learned[i], 1e-5) << i;
}

TEST(ApexDDPGConfigTest, ApexDefaultsOverDDPGAndAConstantNoiseScalePerWorker) {
  auto c = ApexDDPGConfig::FromJson(R"({"num_workers": 4, "optimizer": {"max_weight_sync_delay": 10}})");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->replay.n_step, 3);
  EXPECT_EQ(c->train_batch_size, 512);
  EXPECT_EQ(c->replay.learning_starts, 50000);
  EXPECT_EQ(c->apex.max_weight_sync_delay, 10);
  EXPECT_EQ(c->actor_hiddens, (std::vector<int>{400, 300}));  // DDPG's keys stay
  EXPECT_EQ(c->NoiseScaleAt(0), 1.0);
  c->ForWorker(2);
  EXPECT_NEAR(c->NoiseScaleAt(123456), std::pow(0.4, 1 + 2 / 3.0 * 7), 1e-12);
  auto again = ApexDDPGConfig::FromJson(c->ToJson());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->apex.max_weight_sync_delay, 10);
  auto bad = ApexDDPGConfig::FromJson(R"({"num_workers": 1})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("per_worker_exploration"), std::string::npos);
}

TEST(ApexDDPGConfigTest, TheDDPGPolicyComputesTDErrorsWithoutLearning) {
  auto c = ApexDDPGConfig::FromJson(R"({"num_workers": 2, "seed": 2, "actor_hiddens": [8], "critic_hiddens": [8]})");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  PolicySpec spec{3, 1, false, {-2.f}, {2.f}};
  auto policy = std::move(DDPGPolicy::Create(spec, *c)).value();
  SampleBatch b;
  b.obs_dim = 3;
  std::mt19937_64 rng(7);
  std::normal_distribution<float> g;
  for (int i = 0; i < 8; ++i) {
    for (int k = 0; k < 3; ++k) {
      b.obs.push_back(g(rng));
      b.new_obs.push_back(g(rng));
    }
    b.actions.push_back(g(rng));
    b.rewards.push_back(g(rng));
    b.terminateds.push_back(0);
    b.truncateds.push_back(0);
    b.action_logp.push_back(0);
    b.eps_id.push_back(0);
  }
  const std::vector<float> before = policy->GetWeights();
  const std::vector<float> td = policy->ComputeTDErrors(b);
  ASSERT_EQ(td.size(), 8u);
  EXPECT_EQ(policy->GetWeights(), before);
  EXPECT_TRUE(policy->LastTDErrors().empty()) << "no learn step yet";
  policy->LearnOnBatch(b);
  const std::vector<float> learned = policy->LastTDErrors();
  for (size_t i = 0; i < td.size(); ++i) EXPECT_NEAR(td[i], learned[i], 1e-5) << i;
}

}  // namespace
}  // namespace ray::rllib
