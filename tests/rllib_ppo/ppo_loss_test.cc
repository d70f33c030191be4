#include "algorithms/ppo/ppo_loss.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ray::rllib {
namespace {

// Two samples, behaviour policy uniform over 2 actions (old logp = ln 0.5), current
// policy p = [0.8, 0.2] for both rows:
//   row 0: action 0, A = +1: ratio 1.6 -> min(1.6, clip 1.3) = 1.3
//   row 1: action 1, A = -1: ratio 0.4 -> min(-0.4, -0.7)   = -0.7
//   policy_loss = mean(-1.3, 0.7) = -0.3
//   values [1, 5], targets [0, 0]: squared errors [1, 25] -> clamp at 10 -> mean 5.5
struct Fixture {
  torch::Tensor curr_logits =
      torch::log(torch::tensor({{0.8f, 0.2f}, {0.8f, 0.2f}})).set_requires_grad(true);
  torch::Tensor values = torch::tensor({1.0f, 5.0f}).set_requires_grad(true);
  torch::Tensor prev_logits = torch::zeros({2, 2});
  torch::Tensor actions = torch::tensor({0.0f, 1.0f});
  torch::Tensor old_logp = torch::full({2}, std::log(0.5f));
  torch::Tensor advantages = torch::tensor({1.0f, -1.0f});
  torch::Tensor targets = torch::zeros({2});
};

const double kEntropy = -(0.8 * std::log(0.8) + 0.2 * std::log(0.2));
const double kKl = 0.5 * std::log(0.5 / 0.8) + 0.5 * std::log(0.5 / 0.2);

TEST(PPOLossTest, TermsMatchHandComputation) {
  Fixture f;
  Categorical curr(f.curr_logits), prev(f.prev_logits);
  PPOLossCoeffs c;
  c.clip_param = 0.3;
  c.vf_clip_param = 10.0;
  c.vf_loss_coeff = 0.5;
  c.entropy_coeff = 0.1;
  c.kl_coeff = 0.2;
  PPOLossTerms t =
      ComputePPOLoss(curr, f.values, prev, f.actions, f.old_logp, f.advantages, f.targets, c);
  EXPECT_NEAR(t.policy_loss.item<double>(), -0.3, 1e-5);
  EXPECT_NEAR(t.vf_loss.item<double>(), 5.5, 1e-5);
  EXPECT_NEAR(t.entropy.item<double>(), kEntropy, 1e-5);
  EXPECT_NEAR(t.kl.item<double>(), kKl, 1e-5);
  EXPECT_NEAR(t.total_loss.item<double>(), -0.3 + 0.5 * 5.5 - 0.1 * kEntropy + 0.2 * kKl, 1e-5);
}

TEST(PPOLossTest, ClippedValueErrorHasNoGradient) {
  Fixture f;
  Categorical curr(f.curr_logits), prev(f.prev_logits);
  PPOLossCoeffs c;
  c.vf_loss_coeff = 0.5;
  c.vf_clip_param = 10.0;
  ComputePPOLoss(curr, f.values, prev, f.actions, f.old_logp, f.advantages, f.targets, c)
      .total_loss.backward();
  // d/dv0 of mean(0.5 * v^2) over 2 rows = 0.5 * 2 * 1 / 2; row 1 (25 > 10) is clamped.
  EXPECT_NEAR(f.values.grad()[0].item<double>(), 0.5, 1e-6);
  EXPECT_EQ(f.values.grad()[1].item<double>(), 0.0);
}

TEST(PPOLossTest, KlTermOnlyWithPositiveCoefficient) {
  Fixture f;
  Categorical curr(f.curr_logits), prev(f.prev_logits);
  PPOLossCoeffs c;
  c.kl_coeff = 0.0;
  c.vf_loss_coeff = 0.0;
  PPOLossTerms t =
      ComputePPOLoss(curr, f.values, prev, f.actions, f.old_logp, f.advantages, f.targets, c);
  EXPECT_NEAR(t.total_loss.item<double>(), -0.3, 1e-5);
  EXPECT_NEAR(t.kl.item<double>(), kKl, 1e-5);  // still reported
}

TEST(PPOLossTest, RatioInsideClipRangeIsUnclipped) {
  // Same distribution as behaviour: ratio 1, surrogate = A, loss = -mean(A).
  Categorical curr(torch::zeros({2, 2})), prev(torch::zeros({2, 2}));
  PPOLossCoeffs c;
  c.vf_loss_coeff = 0.0;
  c.kl_coeff = 0.0;
  auto t = ComputePPOLoss(curr, torch::zeros({2}), prev, torch::tensor({0.0f, 1.0f}),
                          torch::full({2}, std::log(0.5f)), torch::tensor({2.0f, 4.0f}),
                          torch::zeros({2}), c);
  EXPECT_NEAR(t.policy_loss.item<double>(), -3.0, 1e-5);
}

TEST(PPOLossTest, ExplainedVariance) {
  auto y = torch::tensor({1.0f, 2.0f, 3.0f, 4.0f});
  EXPECT_NEAR(ExplainedVariance(y, y).item<double>(), 1.0, 1e-6);
  // pred = mean: residual variance equals Var[y] -> 0.
  EXPECT_NEAR(ExplainedVariance(y, torch::full({4}, 2.5f)).item<double>(), 0.0, 1e-6);
  EXPECT_NEAR(ExplainedVariance(y, -10 * y).item<double>(), -1.0, 1e-6);  // floored
  EXPECT_NEAR(ExplainedVariance(torch::ones({3}), torch::zeros({3})).item<double>(), -1.0, 1e-6);
}

}  // namespace
}  // namespace ray::rllib
