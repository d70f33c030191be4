// ES's and ARS's pure pieces against hand computations: centered ranks, the ES and ARS
// gradient estimates, Adam and SGD steps, the flat policy's forward pass and layout,
// the noise table, the configs (RLlib's defaults; unknown and unsupported keys refused
// by name) and the rollout worker on CartPole-v1.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <numeric>

#include "algorithms/ars/ars_config.h"
#include "algorithms/es/es_gradient.h"
#include "algorithms/es/evolution_config.h"
#include "algorithms/es/evolution_worker.h"
#include "algorithms/es/flat_optimizer.h"
#include "algorithms/es/flat_policy.h"
#include "algorithms/es/noise_table.h"

namespace ray::rllib {
namespace {

std::string Bytes(const std::vector<float>& v) {
  std::string s(v.size() * 4, '\0');
  std::memcpy(s.data(), v.data(), s.size());
  return s;
}

TEST(CenteredRanks, AreRanksScaledToPlusMinusHalf) {
  EXPECT_EQ(CenteredRanks({3, 1, 2}), (std::vector<double>{0.5, -0.5, 0.0}));
  EXPECT_EQ(CenteredRanks({10, 20, 30, 40, 50}), (std::vector<double>{-0.5, -0.25, 0, 0.25, 0.5}));
  EXPECT_EQ(CenteredRanks({7}), (std::vector<double>{0.0}));
}

TEST(EsGradient, WeighsEachPerturbationByItsRankDifference) {
  const std::string bytes = Bytes({1, 2, 3, 4});
  NoiseTable noise(bytes.data(), bytes.size());
  // Returns (pos, neg): (10, 0) and (5, 20): ranks of [10, 0, 5, 20] are [2, 0, 1, 3]
  // over 3, minus 0.5: [1/6, -1/2, -1/6, 1/2]. g = ((1/6 + 1/2) eps0 + (-1/6 - 1/2) eps1) / 4.
  std::vector<PerturbedPair> pairs = {{0, 10, 0, 1, 1}, {2, 5, 20, 1, 1}};
  std::vector<float> g = EsGradient(pairs, noise, 2);
  const double w = (2.0 / 3.0) / 4.0;
  EXPECT_NEAR(g[0], w * 1 - w * 3, 1e-6);
  EXPECT_NEAR(g[1], w * 2 - w * 4, 1e-6);
}

TEST(ArsGradient, KeepsTheBestPairsAndScalesByTheirStd) {
  const std::string bytes = Bytes({1, 0, 0, 1, 5, 5});
  NoiseTable noise(bytes.data(), bytes.size());
  std::vector<PerturbedPair> pairs = {{0, 4, 2, 1, 1}, {2, 1, 3, 1, 1}, {4, 0, 1, 1, 1}};
  // Keep 2 of 3 (rollouts_used / num_rollouts = 1/2, rounded up): the pairs with best 4 and 3.
  EXPECT_EQ(ArsTopPairs(pairs, 16, 32), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(ArsTopPairs(pairs, 32, 32).size(), 3u);
  EXPECT_EQ(ArsTopPairs(pairs, 64, 32).size(), 3u) << "rollouts_used is capped at num_rollouts";
  // Kept returns 4, 2, 1, 3: std = sqrt(1.25). g = ((4-2) [1,0] + (1-3) [0,1]) / 2 / std.
  std::vector<float> g = ArsGradient(pairs, noise, 2, 16, 32);
  EXPECT_NEAR(g[0], 1.0 / std::sqrt(1.25), 1e-6);
  EXPECT_NEAR(g[1], -1.0 / std::sqrt(1.25), 1e-6);
}

TEST(FlatOptimizer, AdamsFirstStepIsStepsizeAgainstTheSign) {
  auto adam = MakeAdam(2, 0.01);
  double ratio = 0;
  std::vector<float> theta = adam->Update({1, 1}, {0.5f, -2.f}, &ratio);
  EXPECT_NEAR(theta[0], 0.99, 1e-6);
  EXPECT_NEAR(theta[1], 1.01, 1e-6);
  EXPECT_NEAR(ratio, std::sqrt(2 * 1e-4) / std::sqrt(2.0), 1e-6);
  auto restored = MakeAdam(2, 0.01);
  ASSERT_TRUE(restored->FromJson(adam->ToJson()).ok());
  EXPECT_EQ(restored->ToJson(), adam->ToJson());
  EXPECT_FALSE(MakeAdam(3, 0.01)->FromJson(adam->ToJson()).ok()) << "moments of another size";

  auto sgd = MakeSgd(0.1);
  theta = sgd->Update({1, 1}, {0.5f, -2.f}, nullptr);
  EXPECT_NEAR(theta[0], 0.95, 1e-6);
  EXPECT_NEAR(theta[1], 1.2, 1e-6);
}

TEST(FlatPolicy, ComputesTheDenseForwardPassOfItsFlatWeights) {
  Space obs(Box::Uniform(-10, 10, {2}));
  auto policy = FlatPolicy::Create(obs, Discrete(2), {3}, "relu");
  ASSERT_TRUE(policy.ok());
  EXPECT_EQ(policy->num_params(), 3 * 2 + 3 + 2 * 3 + 2);
  // Hidden: W1 = [[1, 0], [0, 1], [1, 1]], b1 = [0, 0, -5]; out: W2 = [[1, 0, 0], [0, 1, 1]], b2 = [0, 0].
  std::vector<float> w = {1, 0, 0, 1, 1, 1, 0, 0, -5, 1, 0, 0, 0, 1, 1, 0, 0};
  ASSERT_TRUE(policy->SetWeights(w).ok());
  float a[2] = {2, 1};  // hidden relu [2, 1, 0] -> out [2, 1]: action 0
  EXPECT_EQ(policy->Compute(a).index, 0);
  float b[2] = {1, 4};  // hidden [1, 4, 0] -> out [1, 4]: action 1
  EXPECT_EQ(policy->Compute(b).index, 1);
  EXPECT_FALSE(policy->SetWeights({1, 2}).ok());

  auto linear = FlatPolicy::Create(obs, Box::Uniform(-1, 1, {1}), {}, "tanh");
  ASSERT_TRUE(linear.ok());
  ASSERT_TRUE(linear->SetWeights({2, 0, 0.5}).ok());  // 2 x0 + 0.5, clipped to [-1, 1]
  float c[2] = {0.1f, 9};
  EXPECT_FLOAT_EQ(linear->Compute(c).values[0], 0.7f);
  float d[2] = {3, 0};
  EXPECT_FLOAT_EQ(linear->Compute(d).values[0], 1.0f);

  auto one_hot = FlatPolicy::Create(Discrete(3), Discrete(2), {}, "tanh");
  ASSERT_TRUE(one_hot.ok()) << "a Discrete observation is preprocessed one-hot";
  EXPECT_EQ(one_hot->obs_size(), 3);
  EXPECT_EQ(FlatPolicy::Create(Tuple({Discrete(3), Box::Uniform(0, 1, {2})}), Discrete(2), {}, "tanh")->obs_size(), 5);
  auto tuple_actions = FlatPolicy::Create(obs, Tuple({Discrete(2)}), {}, "tanh");
  ASSERT_FALSE(tuple_actions.ok());
  EXPECT_NE(tuple_actions.status().message().find("the action space Tuple(Discrete(2)) is not supported"),
            std::string::npos);
  EXPECT_FALSE(FlatPolicy::Create(obs, Discrete(2), {}, "gelu").ok());
}

TEST(FlatPolicy, InitialWeightsAreNormcRowsAndZeroBiases) {
  auto policy = FlatPolicy::Create(Space(Box::Uniform(-1, 1, {4})), Discrete(2), {8}, "tanh");
  ASSERT_TRUE(policy.ok());
  std::vector<float> w = policy->InitialWeights(7);
  EXPECT_EQ(w, policy->InitialWeights(7));
  for (int o = 0; o < 8; ++o) {
    double norm = 0;
    for (int i = 0; i < 4; ++i) norm += w[o * 4 + i] * w[o * 4 + i];
    EXPECT_NEAR(std::sqrt(norm), 1.0, 1e-5);
    EXPECT_EQ(w[32 + o], 0.f);
  }
  double out_norm = 0;
  for (int i = 0; i < 8; ++i) out_norm += w[40 + i] * w[40 + i];
  EXPECT_NEAR(std::sqrt(out_norm), 0.01, 1e-6);
}

TEST(NoiseTable, IsSeededStandardNormalNoise) {
  const std::string bytes = MakeNoiseBytes(100000);
  EXPECT_EQ(bytes, MakeNoiseBytes(100000));
  EXPECT_NE(bytes, MakeNoiseBytes(100000, 124));
  NoiseTable noise(bytes.data(), bytes.size());
  ASSERT_EQ(noise.size(), 100000);
  std::vector<float> all = noise.Get(0, noise.size());
  double mean = std::accumulate(all.begin(), all.end(), 0.0) / all.size();
  double var = 0;
  for (float v : all) var += (v - mean) * (v - mean);
  EXPECT_NEAR(mean, 0, 0.02);
  EXPECT_NEAR(std::sqrt(var / all.size()), 1, 0.02);
  std::vector<float> x = {1, 1};
  noise.AddScaled(10, 2.f, &x);
  EXPECT_FLOAT_EQ(x[1], 1 + 2 * all[11]);
  Rng rng(1);
  for (int i = 0; i < 1000; ++i) {
    int64_t at = noise.SampleIndex(99990, rng);
    EXPECT_GE(at, 0);
    EXPECT_LE(at, 10);
  }
}

TEST(EvolutionConfig, HasRLlibsDefaultsAndRefusesKeysItDoesNotUse) {
  auto es = ESConfig::FromJson("{}");
  ASSERT_TRUE(es.ok());
  EXPECT_EQ(es->episodes_per_batch, 1000);
  EXPECT_EQ(es->train_batch_size, 10000);
  EXPECT_EQ(es->num_workers, 10);
  EXPECT_EQ(es->noise_size, 250000000);
  EXPECT_DOUBLE_EQ(es->eval_prob, 0.003);
  EXPECT_DOUBLE_EQ(es->l2_coeff, 0.005);
  EXPECT_EQ(es->observation_filter, "MeanStdFilter");
  auto ars = ARSConfig::FromJson("{}");
  ASSERT_TRUE(ars.ok());
  EXPECT_EQ(ars->num_rollouts, 32);
  EXPECT_EQ(ars->num_workers, 2);
  EXPECT_DOUBLE_EQ(ars->eval_prob, 0.03);
  EXPECT_DOUBLE_EQ(ars->action_noise_std, 0.0);

  auto refused = [](const Status& st, const std::string& what) {
    EXPECT_FALSE(st.ok()) << what;
    EXPECT_NE(st.message().find(what), std::string::npos) << st.message();
  };
  refused(ESConfig::FromJson(R"({"lr": 0.1})").status(), "'lr'");
  refused(ESConfig::FromJson(R"({"num_rollouts": 8})").status(), "'num_rollouts'");
  refused(ARSConfig::FromJson(R"({"stepsize": 0.1})").status(), "'stepsize'");
  refused(ESConfig::FromJson(R"({"return_proc_mode": "raw"})").status(), "'return_proc_mode'");
  refused(ESConfig::FromJson(R"({"num_workers": 0})").status(), "'num_workers'");
  refused(ESConfig::FromJson(R"({"model": {"use_lstm": true}})").status(), "'model.use_lstm'");
  refused(ARSConfig::FromJson(R"({"policy_type": "CNN"})").status(), "'policy_type'");
  refused(ESConfig::FromJson(R"({"observation_filter": "ConcurrentMeanStdFilter"})").status(),
          "'observation_filter'");
}

TEST(EvolutionWorker, RunsAntitheticPairsOnTheEnvAndFiltersObservations) {
  const std::string bytes = MakeNoiseBytes(10000);
  NoiseTable noise(bytes.data(), bytes.size());
  EvolutionWorkerOptions o;
  o.env = "CartPole-v1";
  o.hiddens = {4};
  o.activation = "tanh";
  o.eval_prob = 0;
  o.seed = 3;
  auto worker = EvolutionWorker::Create(o, noise, 1);
  ASSERT_TRUE(worker.ok()) << worker.status().ToString();
  std::vector<float> theta(4 * 4 + 4 + 2 * 4 + 2, 0.1f);
  auto batch = (*worker)->DoRollouts(theta, 5);
  ASSERT_TRUE(batch.ok());
  ASSERT_EQ(batch->pairs.size(), 5u);
  EXPECT_TRUE(batch->eval_returns.empty()) << "eval_prob 0";
  int64_t steps = 0;
  for (const PerturbedPair& p : batch->pairs) {
    EXPECT_GE(p.noise_index, 0);
    EXPECT_LE(p.noise_index, 10000 - 30);
    EXPECT_DOUBLE_EQ(p.return_pos, p.length_pos) << "CartPole pays 1 per step";
    steps += p.length_pos + p.length_neg;
  }
  FilterState state = (*worker)->GetFilters(/*flush=*/true);
  EXPECT_EQ(state.rs.count(), steps) << "every observation is pushed";
  EXPECT_EQ(state.buffer.count(), steps);
  EXPECT_EQ((*worker)->GetFilters(false).buffer.count(), 0) << "flushed";
  EXPECT_FALSE((*worker)->DoRollouts({1, 2}, 1).ok()) << "weights of another size";

  o.eval_prob = 0.5;
  auto evaluating = EvolutionWorker::Create(o, noise, 2);
  ASSERT_TRUE(evaluating.ok());
  auto mixed = (*evaluating)->DoRollouts(theta, 20);
  ASSERT_TRUE(mixed.ok());
  EXPECT_GT(mixed->eval_returns.size(), 3u);

  o.env = "NoSuchEnv-v0";
  auto missing = EvolutionWorker::Create(o, noise, 1);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("CartPole-v1"), std::string::npos) << "lists known envs";
}

}  // namespace
}  // namespace ray::rllib
