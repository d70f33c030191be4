#include "algorithms/ppo/ppo_policy.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "runtime/rllib/policy/postprocessing.h"

namespace ray::rllib {
namespace {

PPOConfig SmallConfig(int64_t seed) {
  PPOConfig c;
  c.model.fcnet_hiddens = {16, 16};
  c.train_batch_size = 64;
  c.sgd_minibatch_size = 16;
  c.num_sgd_iter = 2;
  c.seed = seed;
  return c;
}

std::unique_ptr<PPOPolicy> MakePolicy(int64_t seed, PolicySpec spec = {3, 2, true},
                                      PPOConfig config = SmallConfig(0)) {
  config.seed = seed;
  auto p = PPOPolicy::Create(spec, config);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return std::move(p).value();
}

const std::vector<float> kObs = {0.1f, -0.2f, 0.3f, 1.0f, 0.5f, -1.0f};  // two rows of 3

// A postprocessed batch of `n` random-policy steps from `policy` on synthetic data.
SampleBatch SyntheticBatch(PPOPolicy& policy, int n) {
  SampleBatch b;
  b.obs_dim = 3;
  for (int i = 0; i < n; ++i) {
    std::vector<float> o = {0.01f * i, -0.02f * i, 0.5f};
    const ActionBatch a = policy.ComputeActions(o);
    b.dist_dim = a.dist_dim;
    b.obs.insert(b.obs.end(), o.begin(), o.end());
    b.actions.push_back(a.actions[0]);
    b.rewards.push_back(a.actions[0] == 1 ? 1.f : 0.f);
    b.terminateds.push_back(i == n - 1);
    b.truncateds.push_back(0);
    b.action_dist_inputs.insert(b.action_dist_inputs.end(), a.action_dist_inputs.begin(),
                                a.action_dist_inputs.end());
    b.action_logp.push_back(a.action_logp[0]);
    b.vf_preds.push_back(a.vf_preds[0]);
    b.eps_id.push_back(0);
  }
  EXPECT_TRUE(ComputeGaeForTrajectory(&b, 0.f, 0.99, 0.95, true).ok());
  return b;
}

TEST(PPOPolicyTest, CreateRejectsBadSpecAndConfig) {
  EXPECT_FALSE(PPOPolicy::Create({0, 2, true}, SmallConfig(0)).ok());
  PPOConfig bad = SmallConfig(0);
  bad.model.fcnet_activation = "gelu";
  EXPECT_FALSE(PPOPolicy::Create({3, 2, true}, bad).ok());
}

TEST(PPOPolicyTest, ComputeActionsShapes) {
  auto discrete = MakePolicy(1);
  const ActionBatch a = discrete->ComputeActions(kObs);
  EXPECT_EQ(a.actions.size(), 2u);
  EXPECT_EQ(a.dist_dim, 2);
  EXPECT_EQ(a.action_dist_inputs.size(), 4u);
  EXPECT_EQ(a.vf_preds.size(), 2u);
  for (float x : a.actions) EXPECT_TRUE(x == 0.f || x == 1.f);
  EXPECT_THROW(discrete->ComputeActions({1.f, 2.f}), std::invalid_argument);  // not a multiple of obs_dim

  for (bool free_log_std : {false, true}) {
    PPOConfig c = SmallConfig(0);
    c.model.free_log_std = free_log_std;
    auto box = MakePolicy(1, {3, 2, false}, c);
    const ActionBatch bb = box->ComputeActions(kObs, /*explore=*/false);
    const ActionBatch* b = &bb;
    EXPECT_EQ(b->action_dim, 2);
    EXPECT_EQ(b->dist_dim, 4);
    EXPECT_EQ(b->actions.size(), 4u);
    // Deterministic action = mean = first half of the distribution inputs.
    EXPECT_FLOAT_EQ(b->actions[0], b->action_dist_inputs[0]);
    EXPECT_FLOAT_EQ(b->actions[3], b->action_dist_inputs[5]);
    if (free_log_std) {
      EXPECT_FLOAT_EQ(b->action_dist_inputs[2], 0.f);  // state-independent, init 0
      EXPECT_FLOAT_EQ(b->action_dist_inputs[6], 0.f);
    }
  }
}

TEST(PPOPolicyTest, WeightsRoundTripMakesOutputsIdentical) {
  auto a = MakePolicy(1);
  auto b = MakePolicy(2);
  EXPECT_EQ(a->WeightsLayout(), b->WeightsLayout());
  ActionBatch out_a = a->ComputeActions(kObs, false);
  ActionBatch out_b = b->ComputeActions(kObs, false);
  EXPECT_NE(out_a.action_dist_inputs, out_b.action_dist_inputs);

  const std::vector<float> w = a->GetWeights();
  EXPECT_EQ(static_cast<int64_t>(w.size()), a->NumWeights());
  b->SetWeights(w);
  EXPECT_EQ(b->GetWeights(), w);
  out_b = b->ComputeActions(kObs, false);
  EXPECT_EQ(out_a.action_dist_inputs, out_b.action_dist_inputs);
  EXPECT_EQ(out_a.vf_preds, out_b.vf_preds);
  EXPECT_EQ(out_a.action_logp, out_b.action_logp);

  std::vector<float> short_w(w.begin(), w.end() - 1);
  EXPECT_THROW(b->SetWeights(short_w), std::invalid_argument);
}

TEST(PPOPolicyTest, SaveRestoreRoundTripAndLayoutCheck) {
  auto a = MakePolicy(1);
  SampleBatch batch = SyntheticBatch(*a, 64);
  a->LearnOnBatch(batch);  // non-trivial optimiser state and kl_coeff
  const std::string path = ::testing::TempDir() + "/ppo_policy_test.pt";
  a->SaveState(path);

  auto b = MakePolicy(2);
  b->RestoreState(path);
  EXPECT_EQ(b->GetWeights(), a->GetWeights());
  EXPECT_DOUBLE_EQ(b->kl_coeff(), a->kl_coeff());
  EXPECT_EQ(a->ComputeActions(kObs, false).action_dist_inputs,
            b->ComputeActions(kObs, false).action_dist_inputs);

  PPOConfig wide = SmallConfig(0);
  wide.model.fcnet_hiddens = {8};
  auto c = MakePolicy(3, {3, 2, true}, wide);
  EXPECT_THROW(c->RestoreState(path), std::invalid_argument);  // another layout
  EXPECT_THROW(c->RestoreState(path + ".missing"), std::runtime_error);
  std::remove(path.c_str());
}

TEST(PPOPolicyTest, LearnOnBatchReportsRllibStatsAndAdaptsKl) {
  PPOConfig low = SmallConfig(0);
  low.kl_target = 1e3;  // any KL is < 0.5 * target -> coefficient halves
  auto p = MakePolicy(1, {3, 2, true}, low);
  LearnerStats stats = p->LearnOnBatch(SyntheticBatch(*p, 64));
  EXPECT_DOUBLE_EQ(stats.at("cur_kl_coeff"), 0.2);
  EXPECT_DOUBLE_EQ(p->kl_coeff(), 0.1);
  EXPECT_EQ(stats.at("num_sgd_steps"), 2 * 4);  // 2 epochs x 64/16 minibatches
  for (const char* key : {"policy_loss", "vf_loss", "vf_explained_var", "kl", "entropy",
                          "cur_kl_coeff", "cur_lr", "total_loss"}) {
    EXPECT_EQ(stats.count(key), 1u) << key;
  }

  PPOConfig high = SmallConfig(0);
  high.kl_target = 1e-12;  // any nonzero KL is > 2 * target -> coefficient grows
  high.lr = 1e-2;
  auto q = MakePolicy(1, {3, 2, true}, high);
  q->LearnOnBatch(SyntheticBatch(*q, 64));
  EXPECT_DOUBLE_EQ(q->kl_coeff(), 0.3);
}

TEST(PPOPolicyTest, LearnOnBatchNeedsPostprocessedBatch) {
  auto p = MakePolicy(1);
  SampleBatch raw = SyntheticBatch(*p, 8);
  raw.advantages.clear();
  raw.value_targets.clear();
  EXPECT_THROW(p->LearnOnBatch(raw), std::invalid_argument);
}

}  // namespace
}  // namespace ray::rllib
