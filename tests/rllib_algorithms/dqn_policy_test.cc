// DQN's config (RLlib's defaults, refused keys), epsilon schedule, n-step
// postprocessing, TD targets (plain and double Q) against hand computations from the
// networks' own Q values, importance weights, the target network and checkpoints.
#include "algorithms/dqn/dqn_policy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

namespace ray::rllib {
namespace {

DQNConfig Config(const std::string& json = "{}") {
  auto c = DQNConfig::FromJson(json);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return *c;
}

std::unique_ptr<DQNPolicy> Make(const DQNConfig& c, PolicySpec spec = {3, 2, true}) {
  auto p = DQNPolicy::Create(spec, c);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return std::move(*p);
}

// A replayed batch of n rows with 3-d observations.
SampleBatch Batch(int n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g;
  SampleBatch b;
  b.obs_dim = 3;
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < 3; ++k) {
      b.obs.push_back(g(rng));
      b.new_obs.push_back(g(rng));
    }
    b.actions.push_back(static_cast<float>(i % 2));
    b.rewards.push_back(g(rng));
    b.terminateds.push_back(i % 4 == 3);
    b.truncateds.push_back(0);
    b.action_logp.push_back(0);
    b.eps_id.push_back(0);
  }
  return b;
}

TEST(DQNConfigTest, DefaultsAreRLlibs) {
  DQNConfig c = Config();
  EXPECT_EQ(c.num_workers, 0);
  EXPECT_DOUBLE_EQ(c.lr, 5e-4);
  EXPECT_EQ(c.train_batch_size, 32);
  EXPECT_EQ(c.sample_batch_size, 4);
  EXPECT_EQ(*c.grad_clip, 40.0);
  EXPECT_TRUE(c.dueling && c.double_q && c.replay.prioritized_replay);
  EXPECT_EQ(c.hiddens, std::vector<int>{256});
  EXPECT_EQ(c.replay.buffer_size, 50000);
  EXPECT_EQ(c.replay.learning_starts, 1000);
  EXPECT_EQ(c.replay.target_network_update_freq, 500);
  EXPECT_DOUBLE_EQ(c.replay.prioritized_replay_alpha, 0.6);
  EXPECT_DOUBLE_EQ(c.replay.prioritized_replay_eps, 1e-6);
  EXPECT_EQ(c.timesteps_per_iteration, 1000);
  // The full config round-trips (remote workers get it as JSON).
  DQNConfig again = Config(c.ToJson());
  EXPECT_EQ(again.ToJson(), c.ToJson());
}

TEST(DQNConfigTest, RefusesUnsupportedKeysByName) {
  for (const char* json : {R"({"num_atoms": 0})", R"({"v_min": 15, "num_atoms": 51})",
                           R"({"sigma0": 0, "noisy": true})", R"({"soft_q": true})",
                           R"({"parameter_noise": true})", R"({"per_worker_exploration": true})",
                           R"({"worker_side_prioritization": true})", R"({"compress_observations": true})",
                           R"({"n_step": 0})", R"({"buffer_size": 0})", R"({"exploration_final_eps": 2})",
                           R"({"prioritized_replay_beta": 0})", R"({"hiddens": [0]})", R"({"double_qq": true})"}) {
    auto c = DQNConfig::FromJson(json);
    ASSERT_FALSE(c.ok()) << json;
    const std::string key = nlohmann::json::parse(json).begin().key();
    EXPECT_NE(c.status().message().find("'" + key + "'"), std::string::npos) << c.status().message();
  }
  EXPECT_NE(DQNConfig::FromJson(R"({"soft_q": true})").status().message().find("not supported"),
            std::string::npos);
  // Only with num_atoms > 1 or noisy do v_min/v_max or sigma0 matter.
  EXPECT_TRUE(DQNConfig::FromJson(R"({"v_min": 5})").ok());
  EXPECT_TRUE(DQNConfig::FromJson(R"({"sigma0": 0})").ok());
  EXPECT_TRUE(DQNConfig::FromJson(R"({"num_atoms": 51, "noisy": true, "v_min": -1, "v_max": 1})").ok());
  auto box = DQNPolicy::Create({3, 2, /*discrete=*/false}, Config());
  ASSERT_FALSE(box.ok());
  EXPECT_NE(box.status().message().find("Discrete"), std::string::npos);
}

TEST(DQNPolicyTest, EpsilonGreedyFollowsTheLinearSchedule) {
  DQNConfig c = Config(R"({"seed": 1, "schedule_max_timesteps": 1000, "exploration_fraction": 0.5,
                           "exploration_final_eps": 0.1, "hiddens": [8], "model": {"fcnet_hiddens": [8]}})");
  EXPECT_DOUBLE_EQ(c.EpsilonAt(0), 1.0);
  EXPECT_NEAR(c.EpsilonAt(250), 0.55, 1e-12);
  EXPECT_DOUBLE_EQ(c.EpsilonAt(500), 0.1);
  EXPECT_DOUBLE_EQ(c.EpsilonAt(100000), 0.1);
  auto p = Make(c);
  std::vector<float> obs(3 * 4000, 0.3f);
  std::vector<float> q = p->QValues({0.3f, 0.3f, 0.3f});
  const float greedy = q[1] > q[0] ? 1.f : 0.f;
  auto fraction_greedy = [&](bool explore) {
    ActionBatch a = p->ComputeActions(obs, explore);
    EXPECT_EQ(a.dist_dim, 2);
    return std::count(a.actions.begin(), a.actions.end(), greedy) / 4000.0;
  };
  EXPECT_NEAR(fraction_greedy(true), 0.5, 0.03);  // eps 1: uniform over 2 actions
  p->OnGlobalVarUpdate(600);
  EXPECT_NEAR(fraction_greedy(true), 0.95, 0.02);  // eps 0.1: 0.9 + 0.1 / 2
  EXPECT_EQ(fraction_greedy(false), 1.0);
}

TEST(DQNPolicyTest, PostprocessAddsNewObsAndNStepReturns) {
  auto p = Make(Config(R"({"n_step": 3, "gamma": 0.5, "hiddens": [4]})"));
  auto traj = [] {
    SampleBatch b;
    b.obs_dim = 3;
    for (int i = 0; i < 4; ++i) {
      for (int k = 0; k < 3; ++k) b.obs.push_back(static_cast<float>(i));
      b.actions.push_back(0);
      b.rewards.push_back(static_cast<float>(i + 1));
      b.terminateds.push_back(0);
      b.truncateds.push_back(0);
      b.action_logp.push_back(0);
      b.eps_id.push_back(0);
    }
    return b;
  };
  SampleBatch cut = traj();
  p->Postprocess(&cut, {9, 9, 9});  // the fragment ends mid-episode
  EXPECT_EQ(cut.rewards, (std::vector<float>{1 + 0.5f * 2 + 0.25f * 3, 2 + 0.5f * 3 + 0.25f * 4, 3 + 0.5f * 4, 4}));
  EXPECT_EQ(cut.new_obs, (std::vector<float>{3, 3, 3, 9, 9, 9, 9, 9, 9, 9, 9, 9}));
  EXPECT_EQ(cut.terminateds, (std::vector<int32_t>{0, 0, 0, 0}));
  cut.Validate();

  SampleBatch ended = traj();
  ended.terminateds[3] = 1;
  p->Postprocess(&ended, {});  // terminated: nothing to bootstrap from
  EXPECT_EQ(ended.terminateds, (std::vector<int32_t>{0, 1, 1, 1}));
  EXPECT_EQ(std::vector<float>(ended.new_obs.end() - 3, ended.new_obs.end()), (std::vector<float>{0, 0, 0}));

  auto one = Make(Config(R"({"hiddens": [4]})"));
  SampleBatch single = traj();
  one->Postprocess(&single, {9, 9, 9});
  EXPECT_EQ(single.rewards, (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(single.new_obs, (std::vector<float>{1, 1, 1, 2, 2, 2, 3, 3, 3, 9, 9, 9}));
}

// td = Q(s, a) - (r + gamma^n (1 - done) Q_target(s', a*)), from the nets' own values.
void CheckTDErrors(bool double_q, int n_step) {
  DQNConfig c = Config(R"({"seed": 3, "gamma": 0.9, "hiddens": [16], "model": {"fcnet_hiddens": [16]}})");
  c.double_q = double_q;
  c.replay.n_step = n_step;
  auto p = Make(c);
  // Make online and target differ: new random online weights, the target kept.
  std::mt19937_64 rng(11);
  std::normal_distribution<float> g(0.f, 0.5f);
  std::vector<float> w = p->GetWeights();
  for (float& x : w) x = g(rng);
  p->SetWeights(w);
  SampleBatch b = Batch(8, 7);
  std::vector<float> q = p->QValues(b.obs), q_next = p->QValues(b.new_obs), q_next_target = p->QValues(b.new_obs, true);
  int disagree = 0;  // rows where online and target pick different next actions
  for (int i = 0; i < 8; ++i) disagree += (q_next[2 * i + 1] > q_next[2 * i]) != (q_next_target[2 * i + 1] > q_next_target[2 * i]);
  ASSERT_GT(disagree, 0);
  p->LearnOnBatch(b);
  std::vector<float> td = p->LastTDErrors();
  ASSERT_EQ(td.size(), 8u);
  for (int i = 0; i < 8; ++i) {
    const int a = static_cast<int>(b.actions[i]);
    const float* chooser = double_q ? &q_next[2 * i] : &q_next_target[2 * i];
    const int best = chooser[1] > chooser[0] ? 1 : 0;
    const double target = b.rewards[i] + std::pow(0.9, n_step) * (1 - b.terminateds[i]) * q_next_target[2 * i + best];
    EXPECT_NEAR(td[i], q[2 * i + a] - target, 1e-4) << "row " << i << " double_q " << double_q;
  }
}

TEST(DQNPolicyTest, TDErrorsMatchHandComputation) {
  CheckTDErrors(/*double_q=*/true, 1);
  CheckTDErrors(/*double_q=*/false, 1);
  CheckTDErrors(/*double_q=*/true, 3);
}

TEST(DQNPolicyTest, DuelingQIsValuePlusCentredAdvantage) {
  // With one hidden layer each and zero-initialised value head weights/bias V = 0,
  // so Q = A - mean(A): the Q values of each row sum to zero.
  auto p = Make(Config(R"({"seed": 6, "hiddens": [8], "model": {"fcnet_hiddens": [8]}})"));
  std::vector<float> w = p->GetWeights();
  // Layout: trunk (3x8 + 8), advantage (8x8 + 8, 2x8 + 2), value (8x8 + 8, 1x8 + 1).
  const size_t value_out = 24 + 8 + 64 + 8 + 16 + 2 + 64 + 8;
  for (size_t k = value_out; k < w.size(); ++k) w[k] = 0.f;
  ASSERT_EQ(w.size(), value_out + 9);
  p->SetWeights(w);
  SampleBatch b = Batch(5, 2);
  std::vector<float> q = p->QValues(b.obs);
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(q[2 * i] + q[2 * i + 1], 0.f, 1e-5) << "row " << i;
  w[value_out + 8] = 3.f;  // the value head's bias: V = 3, so each row's Q averages 3
  p->SetWeights(w);
  q = p->QValues(b.obs);
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(q[2 * i] + q[2 * i + 1], 6.f, 1e-5) << "row " << i;
}

TEST(DQNPolicyTest, TargetNetworkChangesOnlyOnUpdate) {
  auto p = Make(Config(R"({"seed": 2, "hiddens": [8], "model": {"fcnet_hiddens": [8]}})"));
  SampleBatch b = Batch(16, 1);
  EXPECT_EQ(p->QValues(b.obs), p->QValues(b.obs, true));  // built equal
  const std::vector<float> target_before = p->QValues(b.obs, true);
  p->LearnOnBatch(b);
  EXPECT_EQ(p->QValues(b.obs, true), target_before);
  EXPECT_NE(p->QValues(b.obs), target_before);
  p->UpdateTarget();
  EXPECT_EQ(p->QValues(b.obs, true), p->QValues(b.obs));
}

TEST(DQNPolicyTest, ZeroImportanceWeightsLeaveTheNetworkUnchanged) {
  auto p = Make(Config(R"({"seed": 2, "hiddens": [8], "dueling": false, "model": {"fcnet_hiddens": [8]}})"));
  SampleBatch b = Batch(16, 1);
  b.weights.assign(16, 0.f);
  const std::vector<float> w = p->GetWeights();
  p->LearnOnBatch(b);
  EXPECT_EQ(p->GetWeights(), w);
  b.weights.assign(16, 1.f);
  p->LearnOnBatch(b);
  EXPECT_NE(p->GetWeights(), w);
}

// One state; action 0 pays 1, action 1 pays 0; every step ends the episode.
SampleBatch Bandit() {
  SampleBatch b;
  b.obs_dim = 3;
  for (int i = 0; i < 32; ++i) {
    b.obs.insert(b.obs.end(), {0.5f, -0.5f, 1.f});
    b.new_obs.insert(b.new_obs.end(), {0.f, 0.f, 0.f});
    b.actions.push_back(static_cast<float>(i % 2));
    b.rewards.push_back(i % 2 == 0 ? 1.f : 0.f);
    b.terminateds.push_back(1);
    b.truncateds.push_back(0);
    b.action_logp.push_back(0);
    b.eps_id.push_back(0);
  }
  return b;
}

TEST(DQNPolicyTest, LearnsABanditsValues) {
  auto p = Make(Config(R"({"seed": 4, "lr": 0.01, "hiddens": [16], "model": {"fcnet_hiddens": [16]}})"));
  SampleBatch b = Bandit();
  for (int i = 0; i < 300; ++i) p->LearnOnBatch(b);
  std::vector<float> q = p->QValues({0.5f, -0.5f, 1.f});
  EXPECT_NEAR(q[0], 1.0, 0.05);
  EXPECT_NEAR(q[1], 0.0, 0.05);
  EXPECT_EQ(p->ComputeActions({0.5f, -0.5f, 1.f}, false).actions[0], 0.f);
}

// Worked by hand on atoms z = (-1, 0, 1).
TEST(DQNPolicyTest, ProjectOntoSupportSplitsEachAtomsMassBetweenItsNeighbours) {
  const std::vector<float> p = {0.2f, 0.3f, 0.5f};
  auto row = [&](float reward, float done, double discount) {
    return ProjectOntoSupport({reward}, {done}, p, discount, -1.0, 1.0);
  };
  // r 0.25, discount 0.5: the atoms land at -0.25, 0.25 and 0.75.
  std::vector<float> m = row(0.25f, 0, 0.5);
  const std::vector<float> want = {0.05f, 0.15f + 0.225f + 0.125f, 0.075f + 0.375f};
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(m[k], want[k], 1e-6) << "atom " << k;
  // Landing on atoms exactly: the mass stays whole.
  m = row(0, 0, 1.0);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(m[k], p[k], 1e-6) << "atom " << k;
  // Done: only the reward, clipped to v_max, so every bit of mass goes to the top atom.
  m = row(3, 1, 0.5);
  EXPECT_NEAR(m[0], 0, 1e-6);
  EXPECT_NEAR(m[1], 0, 1e-6);
  EXPECT_NEAR(m[2], 1, 1e-6);
  // Rows are independent; probabilities are conserved.
  m = ProjectOntoSupport({0.25f, -7}, {0, 0}, {0.2f, 0.3f, 0.5f, 1, 0, 0}, 0.5, -1, 1);
  ASSERT_EQ(m.size(), 6u);
  EXPECT_NEAR(m[1], want[1], 1e-6);
  EXPECT_NEAR(m[3], 1, 1e-6);
  EXPECT_THROW(ProjectOntoSupport({1}, {0}, {1}, 0.5, -1, 1), std::invalid_argument);
}


TEST(DQNPolicyTest, DistributionalQLearnsABanditsValues) {
  auto p = Make(Config(R"({"seed": 4, "lr": 0.01, "hiddens": [16], "num_atoms": 11, "v_min": -2,
                           "v_max": 2, "model": {"fcnet_hiddens": [16]}})"));
  SampleBatch b = Bandit();
  for (int i = 0; i < 300; ++i) p->LearnOnBatch(b);
  std::vector<float> q = p->QValues({0.5f, -0.5f, 1.f});
  EXPECT_NEAR(q[0], 1.0, 0.05);
  EXPECT_NEAR(q[1], 0.0, 0.05);
  // The loss is a cross-entropy: the "td errors" the priorities use are positive.
  for (float td : p->LastTDErrors()) EXPECT_GT(td, 0.f);
  EXPECT_EQ(p->ComputeActions({0.5f, -0.5f, 1.f}, false).actions[0], 0.f);
}

TEST(DQNPolicyTest, NoisyNetsExploreThroughTheirWeightsAndLearn) {
  const char* json = R"({"seed": 4, "lr": 0.01, "hiddens": [16], "noisy": true, "sigma0": 0.5,
                         "exploration_final_eps": 0, "exploration_fraction": 0,
                         "model": {"fcnet_hiddens": [16]}})";
  auto p = Make(Config(json));
  auto plain = Make(Config(R"({"hiddens": [16], "model": {"fcnet_hiddens": [16]}})"));
  // Each noisy layer has a sigma beside each weight and bias.
  const size_t trunk = 3 * 16 + 16;
  EXPECT_EQ(p->GetWeights().size() - trunk, 2 * (plain->GetWeights().size() - trunk));
  // Exploring draws fresh noise each time; QValues and greedy actions use the mean.
  const std::vector<float> obs = {0.1f, 0.2f, 0.3f};
  EXPECT_NE(p->ComputeActions(obs, true).action_dist_inputs, p->ComputeActions(obs, true).action_dist_inputs);
  EXPECT_EQ(p->ComputeActions(obs, false).action_dist_inputs, p->QValues(obs));
  EXPECT_EQ(p->QValues(obs), p->QValues(obs));
  SampleBatch b = Bandit();
  for (int i = 0; i < 300; ++i) p->LearnOnBatch(b);
  std::vector<float> q = p->QValues({0.5f, -0.5f, 1.f});
  EXPECT_NEAR(q[0], 1.0, 0.1);
  EXPECT_NEAR(q[1], 0.0, 0.1);
  // With both options, checkpoints keep the noise scales too.
  auto both = Make(Config(R"({"seed": 1, "hiddens": [8], "noisy": true, "num_atoms": 5})"));
  const std::string path = ::testing::TempDir() + "/rainbow.pt";
  both->SaveState(path);
  auto again = Make(Config(R"({"seed": 2, "hiddens": [8], "noisy": true, "num_atoms": 5})"));
  EXPECT_NE(again->GetWeights(), both->GetWeights());
  again->RestoreState(path);
  EXPECT_EQ(again->GetWeights(), both->GetWeights());
}

TEST(DQNPolicyTest, CheckpointRestoresOnlineTargetAndTimestep) {
  DQNConfig c = Config(R"({"seed": 5, "hiddens": [8], "model": {"fcnet_hiddens": [8]}})");
  auto p = Make(c);
  SampleBatch b = Batch(16, 1);
  p->LearnOnBatch(b);
  p->OnGlobalVarUpdate(1234);
  const std::string path = testing::TempDir() + "/dqn_policy_test.pt";
  p->SaveState(path);
  c.seed = 99;
  auto q = Make(c);
  q->RestoreState(path);
  EXPECT_EQ(q->GetWeights(), p->GetWeights());
  EXPECT_EQ(q->QValues(b.obs, true), p->QValues(b.obs, true));
  EXPECT_EQ(q->timestep(), 1234);
  auto other = Make(Config(R"({"hiddens": [4]})"));
  EXPECT_THROW(other->RestoreState(path), std::invalid_argument);
  std::filesystem::remove(path);
}

TEST(DQNPolicyTest, RefusesBatchesItCannotLearnFrom) {
  auto p = Make(Config(R"({"hiddens": [4]})"));
  SampleBatch b = Batch(4, 1);
  b.new_obs.clear();
  EXPECT_THROW(p->LearnOnBatch(b), std::invalid_argument);
  b = Batch(4, 1);
  b.actions[0] = 5;
  EXPECT_THROW(p->LearnOnBatch(b), std::invalid_argument);
  EXPECT_THROW(p->ComputeActions({1, 2}), std::invalid_argument);
}

}  // namespace
}  // namespace ray::rllib
