#include "algorithms/a2c/a2c_policy.h"

#include <gtest/gtest.h>

#include <cmath>

#include "runtime/rllib/policy/postprocessing.h"
#include "tests/rllib_algorithms/test_batches.h"

namespace ray::rllib {
namespace {

A2CConfig SmallConfig() {
  A2CConfig c;
  c.model.fcnet_hiddens = {16};
  c.seed = 1;
  c.gamma = 0.9;
  c.lambda = 0.8;
  return c;
}

std::unique_ptr<A2CPolicy> MakePolicy(A2CConfig c = SmallConfig()) {
  auto p = A2CPolicy::Create({3, 2, true}, c);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return std::move(p).value();
}

TEST(A2CConfigTest, DefaultsAreRllibsAndBadValuesAreRefusedByName) {
  A2CConfig c;
  EXPECT_EQ(c.sample_batch_size, 20);
  EXPECT_DOUBLE_EQ(c.lr, 0.0001);
  EXPECT_DOUBLE_EQ(*c.grad_clip, 40.0);
  EXPECT_DOUBLE_EQ(c.vf_loss_coeff, 0.5);
  EXPECT_DOUBLE_EQ(c.entropy_coeff, 0.01);
  EXPECT_DOUBLE_EQ(c.min_iter_time_s, 10);
  EXPECT_FALSE(c.microbatch_size.has_value());
  auto async = A2CConfig::FromJson(R"({"sample_async": true})");
  ASSERT_FALSE(async.ok());
  EXPECT_NE(async.status().message().find("'sample_async'"), std::string::npos);
  EXPECT_TRUE(A2CConfig::FromJson(R"({"sample_async": false})").ok());
  auto micro = A2CConfig::FromJson(R"({"train_batch_size": 40, "microbatch_size": 80})");
  ASSERT_FALSE(micro.ok());
  EXPECT_NE(micro.status().message().find("'microbatch_size'"), std::string::npos);
  auto unknown = A2CConfig::FromJson(R"({"kl_coeff": 0.2})");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("'kl_coeff'"), std::string::npos);
}

// A cut fragment bootstraps from V(next obs); a terminated one from 0 (GAE, as
// RLlib's compute_advantages with the policy's value).
TEST(A2CPolicyTest, PostprocessBootstrapsOnlyCutFragments) {
  auto p = MakePolicy();
  const std::vector<float> next = {0.3f, 0.2f, 0.1f};
  const float v_next = p->ComputeValues(next)[0];
  SampleBatch cut = testing::Fragment(*p, 5, /*terminated=*/false);
  SampleBatch want = cut;
  ASSERT_TRUE(ComputeAdvantages(&want, v_next, 0.9, 0.8, true).ok());
  p->Postprocess(&cut, next);
  EXPECT_EQ(cut.advantages, want.advantages);
  EXPECT_EQ(cut.value_targets, want.value_targets);

  SampleBatch ended = testing::Fragment(*p, 5, /*terminated=*/true);
  SampleBatch want0 = ended;
  ASSERT_TRUE(ComputeAdvantages(&want0, 0.f, 0.9, 0.8, true).ok());
  p->Postprocess(&ended, {});
  EXPECT_EQ(ended.advantages, want0.advantages);
}

// RLlib's A3CLoss: sums over the batch, not means.
TEST(A2CPolicyTest, LossTermsAreSumsAsRllibsA3CLoss) {
  A2CConfig c = SmallConfig();
  c.grad_clip.reset();
  auto p = MakePolicy(c);
  SampleBatch b = testing::Fragment(*p, 12, /*terminated=*/true);
  p->Postprocess(&b, {});
  double pi = 0, vf = 0;
  for (int i = 0; i < b.size(); ++i) {
    pi -= b.action_logp[i] * b.advantages[i];
    vf += 0.5 * std::pow(b.vf_preds[i] - b.value_targets[i], 2);
  }
  Gradients g = p->ComputeGradients(b);
  EXPECT_NEAR(g.info.at("policy_loss"), pi, 1e-4);
  EXPECT_NEAR(g.info.at("vf_loss"), vf, 1e-4);
  EXPECT_NEAR(g.info.at("total_loss"),
              pi + 0.5 * vf - 0.01 * g.info.at("policy_entropy"), 1e-4);
}

// Gradients of a summed loss add up over microbatches: what microbatch_size relies on.
TEST(A2CPolicyTest, MicrobatchGradientsSumToTheWholeBatchGradient) {
  A2CConfig c = SmallConfig();
  c.grad_clip.reset();  // clipping is per microbatch, as in RLlib
  auto p = MakePolicy(c);
  SampleBatch b = testing::Fragment(*p, 12, /*terminated=*/true);
  p->Postprocess(&b, {});
  std::vector<float> whole = p->ComputeGradients(b).grads;
  std::vector<float> a = p->ComputeGradients(b.Slice(0, 5)).grads;
  std::vector<float> rest = p->ComputeGradients(b.Slice(5, 12)).grads;
  ASSERT_EQ(whole.size(), a.size());
  for (size_t i = 0; i < whole.size(); ++i) EXPECT_NEAR(a[i] + rest[i], whole[i], 1e-4) << i;
}

TEST(A2CPolicyTest, CheckpointRoundTripKeepsWeightsAndOptimiser) {
  auto a = MakePolicy();
  SampleBatch b = testing::Fragment(*a, 8, true);
  a->Postprocess(&b, {});
  a->LearnOnBatch(b);
  const std::string path = ::testing::TempDir() + "/a2c_policy_test.pt";
  a->SaveState(path);
  A2CConfig other = SmallConfig();
  other.seed = 7;
  auto r = MakePolicy(other);
  r->RestoreState(path);
  EXPECT_EQ(r->GetWeights(), a->GetWeights());
  EXPECT_EQ(r->timestep(), a->timestep());
  // Same optimiser state: the next step is identical.
  a->LearnOnBatch(b);
  r->LearnOnBatch(b);
  EXPECT_EQ(r->GetWeights(), a->GetWeights());
  std::remove(path.c_str());
}

}  // namespace
}  // namespace ray::rllib
