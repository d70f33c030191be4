#include "algorithms/pg/pg_policy.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/rllib_algorithms/test_batches.h"

namespace ray::rllib {
namespace {

std::unique_ptr<PGPolicy> MakePolicy(int64_t seed, double lr = 0.01) {
  PGConfig c;
  c.model.fcnet_hiddens = {16};
  c.seed = seed;
  c.lr = lr;
  c.gamma = 0.5;
  auto p = PGPolicy::Create({3, 2, true}, c);
  EXPECT_TRUE(p.ok()) << p.status().ToString();
  return std::move(p).value();
}

TEST(PGConfigTest, DefaultsAreRllibsAndUnknownKeysAreRefused) {
  PGConfig c;
  EXPECT_EQ(c.num_workers, 0);
  EXPECT_DOUBLE_EQ(c.lr, 0.0004);
  EXPECT_EQ(c.train_batch_size, 200);
  auto bad = PGConfig::FromJson(R"({"lr": 0.01, "clip_param": 0.2})");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("'clip_param'"), std::string::npos);
  auto ok = PGConfig::FromJson(R"({"lr": 0.01, "batch_mode": "complete_episodes"})");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->batch_mode, "complete_episodes");
}

// Advantages are the discounted returns from last_r = 0, even when the fragment was
// cut (RLlib's PG does not bootstrap): gamma 0.5, rewards r -> A_t = sum 0.5^k r_{t+k}.
TEST(PGPolicyTest, PostprocessIsDiscountedReturnWithoutBootstrap) {
  auto p = MakePolicy(1);
  SampleBatch b = testing::Fragment(*p, 4, /*terminated=*/false);
  p->Postprocess(&b, /*next_obs=*/{9.f, 9.f, 9.f});
  float ret = 0;
  for (int t = 3; t >= 0; --t) {
    ret = b.rewards[t] + 0.5f * ret;
    EXPECT_NEAR(b.advantages[t], ret, 1e-6) << t;
    EXPECT_EQ(b.value_targets[t], 0.f);
  }
}

// The loss is -mean(logp(a) * A), with logp from the behaviour policy (the same
// weights); one learning step makes the advantaged actions more likely.
TEST(PGPolicyTest, LossIsMeanLogpTimesAdvantageAndLearningFollowsIt) {
  auto p = MakePolicy(2);
  SampleBatch b = testing::Fragment(*p, 32, /*terminated=*/true);
  p->Postprocess(&b, {});
  double want = 0;
  for (int i = 0; i < b.size(); ++i) want -= b.action_logp[i] * b.advantages[i];
  want /= b.size();
  Gradients g = p->ComputeGradients(b);
  EXPECT_NEAR(g.info.at("policy_loss"), want, 1e-4);
  EXPECT_EQ(g.num_rows, 32);

  // Reward only for action 1: after some steps, P(action 1) rises on these states.
  auto prob1 = [&] {
    ActionBatch a = p->ComputeActions(std::vector<float>(b.obs.begin(), b.obs.begin() + 3), false);
    float l0 = a.action_dist_inputs[0], l1 = a.action_dist_inputs[1];
    return 1.0 / (1.0 + std::exp(l0 - l1));
  };
  const double before = prob1();
  for (int k = 0; k < 20; ++k) {
    SampleBatch fresh = testing::Fragment(*p, 32, true);
    p->Postprocess(&fresh, {});
    LearnerStats s = p->LearnOnBatch(fresh);
    EXPECT_EQ(s.count("cur_lr"), 1u);
  }
  EXPECT_GT(prob1(), before + 0.05);
}

TEST(PGPolicyTest, ApplyGradientsOfComputeGradientsEqualsLearnOnBatch) {
  auto a = MakePolicy(3);
  auto b = MakePolicy(3);
  ASSERT_EQ(a->GetWeights(), b->GetWeights());
  SampleBatch batch = testing::Fragment(*a, 16, true);
  a->Postprocess(&batch, {});
  a->LearnOnBatch(batch);
  b->ApplyGradients(b->ComputeGradients(batch).grads);
  auto wa = a->GetWeights(), wb = b->GetWeights();
  ASSERT_EQ(wa.size(), wb.size());
  for (size_t i = 0; i < wa.size(); ++i) EXPECT_NEAR(wa[i], wb[i], 1e-6) << i;
  EXPECT_THROW(b->ApplyGradients({1.f}), std::invalid_argument);
  SampleBatch raw = batch;
  raw.advantages.clear();
  raw.value_targets.clear();
  EXPECT_THROW(a->LearnOnBatch(raw), std::invalid_argument);
}

}  // namespace
}  // namespace ray::rllib
