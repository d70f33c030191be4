// SAC's and DDPG/TD3's configs (RLlib's defaults, keys refused by name) and policies:
// actions inside the Box, pure exploration, TD3's delayed actor, soft target updates
// through UpdateTarget, weights and checkpoints.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include <torch/torch.h>

#include "algorithms/ddpg/ddpg_policy.h"
#include "algorithms/sac/sac_policy.h"

namespace ray::rllib {
namespace {

const PolicySpec kPendulum{3, 1, false, {-2.0f}, {2.0f}};

template <typename C>
std::string Refusal(const std::string& json) {
  auto c = C::FromJson(json);
  return c.ok() ? std::string("accepted") : c.status().message();
}

std::string DDPGRefusal(const std::string& json) { return Refusal<DDPGConfig>(json); }
std::string SACRefusal(const std::string& json) { return Refusal<SACConfig>(json); }

TEST(SACConfigTest, DefaultsAreRLlibs) {
  auto c = SACConfig::FromJson("{}");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->twin_q);
  EXPECT_EQ(c->Q_model.hidden_layer_sizes, (std::vector<int>{256, 256}));
  EXPECT_EQ(c->policy_model.hidden_activation, "relu");
  EXPECT_DOUBLE_EQ(c->tau, 5e-3);
  EXPECT_FALSE(c->target_entropy.has_value());  // "auto"
  EXPECT_DOUBLE_EQ(c->initial_alpha, 1.0);
  EXPECT_DOUBLE_EQ(c->critic_learning_rate, 3e-4);
  EXPECT_EQ(c->train_batch_size, 256);
  EXPECT_EQ(c->sample_batch_size, 1);
  EXPECT_EQ(c->replay.learning_starts, 1500);
  EXPECT_EQ(c->replay.buffer_size, 1000000);
  EXPECT_FALSE(c->replay.prioritized_replay);
  EXPECT_EQ(c->timesteps_per_iteration, 100);
}

TEST(SACConfigTest, RefusesKeysItDoesNotImplementByName) {
  EXPECT_NE(SACRefusal(R"({"lr": 0.001})").find("'lr' is not used by SAC"), std::string::npos);
  EXPECT_NE(SACRefusal(R"({"model": {"fcnet_hiddens": [8]}})").find("'model'"), std::string::npos);
  EXPECT_NE(SACRefusal(R"({"normalize_actions": false})").find("'normalize_actions'"), std::string::npos);
  EXPECT_NE(SACRefusal(R"({"Q_model": {"hidden_sizes": [8]}})").find("'Q_model.hidden_sizes'"), std::string::npos);
  EXPECT_NE(SACRefusal(R"({"optimization": {"lr": 1}})").find("'optimization.lr'"), std::string::npos);
  EXPECT_NE(SACRefusal(R"({"target_entropy": "max"})").find("'target_entropy'"), std::string::npos);
  EXPECT_NE(SACRefusal(R"({"prioritized_replay_alpha": -1})").find("'prioritized_replay_alpha'"), std::string::npos);
  EXPECT_NE(SACRefusal(R"({"Q_model": {"hidden_activation": "elu"}})").find("hidden_activation"), std::string::npos);
  EXPECT_EQ(SACRefusal(R"({"model": {}, "target_entropy": -2, "n_step": 3, "Q_model": {"hidden_layer_sizes": [8]}})"),
            "accepted");
}

TEST(DDPGConfigTest, DefaultsAreRLlibsAndTD3s) {
  auto c = DDPGConfig::FromJson("{}");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_FALSE(c->twin_q || c->smooth_target_policy);
  EXPECT_EQ(c->policy_delay, 1);
  EXPECT_EQ(c->actor_hiddens, (std::vector<int>{400, 300}));
  EXPECT_EQ(c->exploration_noise_type, "ou");
  EXPECT_DOUBLE_EQ(c->tau, 0.002);
  EXPECT_DOUBLE_EQ(c->l2_reg, 1e-6);
  EXPECT_TRUE(c->replay.prioritized_replay);
  EXPECT_EQ(c->pure_exploration_steps, 1000);
  auto t = DDPGConfig::FromJson("{}", DDPGConfig::TD3Defaults());
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_TRUE(t->twin_q && t->smooth_target_policy);
  EXPECT_EQ(t->policy_delay, 2);
  EXPECT_TRUE(t->GaussianNoise());
  EXPECT_EQ(t->train_batch_size, 100);
  EXPECT_EQ(t->replay.learning_starts, 10000);
  EXPECT_DOUBLE_EQ(t->tau, 5e-3);
}

TEST(DDPGConfigTest, RefusesKeysItDoesNotImplementByName) {
  EXPECT_NE(DDPGRefusal(R"({"parameter_noise": true})").find("'parameter_noise'"), std::string::npos);
  EXPECT_NE(DDPGRefusal(R"({"use_state_preprocessor": true})").find("'use_state_preprocessor'"), std::string::npos);
  EXPECT_NE(DDPGRefusal(R"({"lr_schedule": [[0, 0.1]]})").find("'lr_schedule' is not used by DDPG"),
            std::string::npos);
  EXPECT_NE(DDPGRefusal(R"({"exploration_noise_type": "pink"})").find("'exploration_noise_type'"), std::string::npos);
  EXPECT_NE(DDPGRefusal(R"({"compress_observations": true})").find("'compress_observations'"), std::string::npos);
  EXPECT_NE(DDPGRefusal(R"({"policy_delay": 0})").find("'policy_delay'"), std::string::npos);
  EXPECT_NE(DDPGRefusal(R"({"exploration_ou_theta": 0})").find("'exploration_ou_theta'"), std::string::npos);
}

TEST(DDPGConfigTest, NoiseScaleAnnealsOnlyWhenAsked) {
  auto c = DDPGConfig::FromJson(R"({"exploration_should_anneal": true, "schedule_max_timesteps": 100000,
                                    "exploration_fraction": 0.1, "exploration_final_scale": 0.02})");
  ASSERT_TRUE(c.ok());
  EXPECT_DOUBLE_EQ(c->NoiseScaleAt(0), 1.0);
  EXPECT_NEAR(c->NoiseScaleAt(5000), 0.51, 1e-9);
  EXPECT_DOUBLE_EQ(c->NoiseScaleAt(20000), 0.02);
  EXPECT_DOUBLE_EQ(DDPGConfig().NoiseScaleAt(20000), 1.0);
}

template <typename P, typename C>
std::unique_ptr<P> Make(const C& c, const PolicySpec& spec = kPendulum) {
  auto p = P::Create(spec, c);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return std::move(*p);
}

SACConfig SmallSAC() {
  auto c = SACConfig::FromJson(R"({"seed": 1, "Q_model": {"hidden_layer_sizes": [16]},
                                   "policy_model": {"hidden_layer_sizes": [16]}})");
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return *c;
}

DDPGConfig SmallDDPG(const std::string& json = "{}", bool td3 = false) {
  auto c = DDPGConfig::FromJson(json, td3 ? DDPGConfig::TD3Defaults() : DDPGConfig());
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  c->seed = 1;
  c->actor_hiddens = c->critic_hiddens = {16};
  return *c;
}

// A replayed Pendulum-shaped batch (postprocessed: new_obs filled).
SampleBatch Batch(int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g;
  std::uniform_real_distribution<float> torque(-2, 2);
  SampleBatch b;
  b.obs_dim = 3;
  b.action_dim = 1;
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < 3; ++k) {
      b.obs.push_back(g(rng));
      b.new_obs.push_back(g(rng));
    }
    b.actions.push_back(torque(rng));
    b.rewards.push_back(-std::abs(g(rng)));
    b.terminateds.push_back(0);
    b.truncateds.push_back(0);
    b.action_logp.push_back(0);
    b.eps_id.push_back(0);
  }
  return b;
}

std::vector<float> Obs(int rows) {
  std::vector<float> obs;
  for (int i = 0; i < rows * 3; ++i) obs.push_back(std::sin(0.7f * i));
  return obs;
}

TEST(SACPolicyTest, RefusesDiscreteActionsAndMissingBounds) {
  EXPECT_FALSE(SACPolicy::Create({3, 2, true}, SmallSAC()).ok());
  EXPECT_FALSE(SACPolicy::Create({3, 1, false}, SmallSAC()).ok());
  EXPECT_FALSE(DDPGPolicy::Create({3, 1, false, {1.0f}, {1.0f}}, SmallDDPG()).ok());
}

TEST(SACPolicyTest, ActionsStayInsideTheBoxAndGreedyIsRepeatable) {
  auto p = Make<SACPolicy>(SmallSAC());
  ActionBatch a = p->ComputeActions(Obs(200));
  ASSERT_EQ(a.actions.size(), 200u);
  EXPECT_EQ(a.dist_dim, 2);
  float lo = 10, hi = -10;
  for (float x : a.actions) lo = std::min(lo, x), hi = std::max(hi, x);
  EXPECT_GE(lo, -2.0f);
  EXPECT_LE(hi, 2.0f);
  EXPECT_LT(lo, -0.5f);  // exploring: spread over the range (initial std ~ 1)
  EXPECT_GT(hi, 0.5f);
  EXPECT_EQ(p->ComputeActions(Obs(4), false).actions, p->ComputeActions(Obs(4), false).actions);
}

TEST(SACPolicyTest, LearnStepsLowerTheCriticLossAndTuneAlpha) {
  auto p = Make<SACPolicy>(SmallSAC());
  SampleBatch b = Batch(64, 2);
  const double first = p->LearnOnBatch(b)["critic_loss"];
  LearnerStats s;
  for (int i = 0; i < 200; ++i) s = p->LearnOnBatch(b);
  EXPECT_LT(s["critic_loss"], first);
  EXPECT_NE(s["alpha_value"], 1.0);
  EXPECT_DOUBLE_EQ(s["target_entropy"], -1.0);
  EXPECT_EQ(p->LastTDErrors().size(), 64u);
}

TEST(SACPolicyTest, ComputeThenApplyGradientsEqualsLearnOnBatch) {
  auto a = Make<SACPolicy>(SmallSAC()), b = Make<SACPolicy>(SmallSAC());
  ASSERT_EQ(a->GetWeights(), b->GetWeights());
  SampleBatch batch = Batch(32, 3);
  torch::manual_seed(5);
  a->LearnOnBatch(batch);
  torch::manual_seed(5);
  Gradients g = b->ComputeGradients(batch);
  EXPECT_EQ(static_cast<int64_t>(g.grads.size()), static_cast<int64_t>(b->GetWeights().size()));
  b->ApplyGradients(g.grads);
  auto wa = a->GetWeights(), wb = b->GetWeights();
  for (size_t i = 0; i < wa.size(); ++i) ASSERT_NEAR(wa[i], wb[i], 1e-5) << i;
}

TEST(SACPolicyTest, CheckpointRestoresWeightsAndRefusesAnotherLayout) {
  auto p = Make<SACPolicy>(SmallSAC());
  p->LearnOnBatch(Batch(32, 4));
  const std::string path = ::testing::TempDir() + "/sac_policy.pt";
  p->SaveState(path);
  auto q = Make<SACPolicy>(SmallSAC());
  q->RestoreState(path);
  EXPECT_EQ(q->GetWeights(), p->GetWeights());
  EXPECT_EQ(q->num_learn_steps(), 1);
  EXPECT_DOUBLE_EQ(q->alpha(), p->alpha());
  SACConfig other = SmallSAC();
  other.twin_q = false;
  EXPECT_THROW(Make<SACPolicy>(other)->RestoreState(path), std::invalid_argument);
  EXPECT_THROW(q->SetWeights({1.0f}), std::invalid_argument);
  std::filesystem::remove(path);
}

TEST(SACPolicyTest, UpdateTargetMovesTargetCriticsByTau) {
  SACConfig c = SmallSAC();
  c.tau = 0.5;
  auto p = Make<SACPolicy>(c);
  std::vector<float> obs = Obs(8), actions(8, 0.5f);
  auto before = p->QValues(obs, actions, /*target=*/true);
  EXPECT_EQ(before, p->QValues(obs, actions));  // a copy at construction
  for (int i = 0; i < 20; ++i) p->LearnOnBatch(Batch(32, 10 + i));
  auto online = p->QValues(obs, actions);
  EXPECT_EQ(p->QValues(obs, actions, true), before);  // targets move only on UpdateTarget
  for (int i = 0; i < 30; ++i) p->UpdateTarget();
  auto after = p->QValues(obs, actions, true);
  for (size_t i = 0; i < after.size(); ++i) EXPECT_NEAR(after[i], online[i], 1e-3);
}

TEST(SACPolicyTest, NoDoneAtEndFalseEndsTruncatedEpisodes) {
  SACConfig c = SmallSAC();
  SampleBatch b = Batch(3, 5);
  b.new_obs.clear();
  b.truncateds[2] = 1;
  SampleBatch keep = b;
  Make<SACPolicy>(c)->Postprocess(&keep, {0.1f, 0.2f, 0.3f});
  EXPECT_EQ(keep.terminateds[2], 0);
  c.no_done_at_end = false;
  Make<SACPolicy>(c)->Postprocess(&b, {0.1f, 0.2f, 0.3f});
  EXPECT_EQ(b.terminateds[2], 1);
  EXPECT_EQ(b.new_obs.size(), 9u);
}

TEST(DDPGPolicyTest, PureExplorationThenActorPlusClippedNoise) {
  DDPGConfig c = SmallDDPG(R"({"pure_exploration_steps": 100, "exploration_ou_noise_scale": 0.0})");
  auto p = Make<DDPGPolicy>(c);
  auto greedy = p->ComputeActions(Obs(300), false).actions;
  auto random = p->ComputeActions(Obs(300)).actions;
  EXPECT_NE(random, greedy);
  float lo = 10, hi = -10;
  for (float x : random) lo = std::min(lo, x), hi = std::max(hi, x);
  EXPECT_LT(lo, -1.8f);
  EXPECT_GT(hi, 1.8f);
  p->OnGlobalVarUpdate(100);
  EXPECT_EQ(p->ComputeActions(Obs(300)).actions, greedy);  // noise scale 0: the actor's action
  auto g = Make<DDPGPolicy>(SmallDDPG(R"({"pure_exploration_steps": 0, "exploration_noise_type": "gaussian",
                                          "exploration_gaussian_sigma": 5.0})"));
  auto noisy = g->ComputeActions(Obs(300)).actions;
  for (float x : noisy) ASSERT_TRUE(x >= -2.0f && x <= 2.0f) << x;
}

TEST(DDPGPolicyTest, TD3StepsTheActorEveryPolicyDelayStepsOnly) {
  auto p = Make<DDPGPolicy>(SmallDDPG("{}", /*td3=*/true));
  SampleBatch b = Batch(32, 6);
  auto actor_out = [&] { return p->ComputeActions(Obs(4), false).actions; };
  auto a0 = actor_out();
  auto s0 = p->LearnOnBatch(b);  // learn step 0: actor and critic
  auto a1 = actor_out();
  EXPECT_NE(a1, a0);
  EXPECT_TRUE(s0.count("actor_loss"));
  auto s1 = p->LearnOnBatch(b);  // learn step 1: critic only
  EXPECT_EQ(actor_out(), a1);
  EXPECT_FALSE(s1.count("actor_loss"));
  p->LearnOnBatch(b);  // learn step 2: actor again
  EXPECT_NE(actor_out(), a1);
}

TEST(DDPGPolicyTest, CriticLearnsAndCheckpointRoundTrips) {
  auto p = Make<DDPGPolicy>(SmallDDPG(R"({"use_huber": true})"));
  SampleBatch b = Batch(64, 7);
  const double first = p->LearnOnBatch(b)["critic_loss"];
  LearnerStats s;
  for (int i = 0; i < 200; ++i) s = p->LearnOnBatch(b);
  EXPECT_LT(s["critic_loss"], first);
  const std::string path = ::testing::TempDir() + "/ddpg_policy.pt";
  p->SaveState(path);
  auto q = Make<DDPGPolicy>(SmallDDPG(R"({"use_huber": true})"));
  q->RestoreState(path);
  EXPECT_EQ(q->GetWeights(), p->GetWeights());
  EXPECT_THROW(Make<DDPGPolicy>(SmallDDPG("{}", true))->RestoreState(path), std::invalid_argument);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace ray::rllib
