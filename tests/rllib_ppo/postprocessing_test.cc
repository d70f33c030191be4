#include "runtime/rllib/policy/postprocessing.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ray::rllib {
namespace {

// Three steps of one episode: rewards 1, V = [0.5, 0.4, 0.3].
SampleBatch Trajectory(bool terminated) {
  SampleBatch b;
  b.obs_dim = 1;
  b.dist_dim = 2;
  for (int t = 0; t < 3; ++t) {
    b.obs.push_back(t);
    b.actions.push_back(0);
    b.rewards.push_back(1.f);
    b.terminateds.push_back(terminated && t == 2);
    b.truncateds.push_back(!terminated && t == 2);
    b.action_dist_inputs.insert(b.action_dist_inputs.end(), {0, 0});
    b.action_logp.push_back(std::log(0.5f));
    b.vf_preds.push_back(0.5f - 0.1f * t);
    b.eps_id.push_back(0);
  }
  return b;
}

void ExpectNear(const std::vector<float>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << "index " << i;
}

TEST(PostprocessingTest, DiscountCumsum) {
  ExpectNear(DiscountCumsum({1, 2, 3}, 0.5), {1 + 0.5 * 2 + 0.25 * 3, 2 + 0.5 * 3, 3});
}

// gamma 0.9, lambda 0.8 (gamma * lambda = 0.72), worked by hand:
//   terminated (last_r = 0): delta = [1 + .9*.4 - .5, 1 + .9*.3 - .4, 1 + 0 - .3]
//                                  = [0.86, 0.87, 0.7]
//   A2 = 0.7, A1 = 0.87 + 0.72*0.7 = 1.374, A0 = 0.86 + 0.72*1.374 = 1.84928
TEST(PostprocessingTest, GaeTerminatedDoesNotBootstrap) {
  SampleBatch b = Trajectory(/*terminated=*/true);
  // The bootstrap value must be ignored after a termination.
  ASSERT_TRUE(ComputeGaeForTrajectory(&b, /*bootstrap_value=*/2.0f, 0.9, 0.8, true).ok());
  ExpectNear(b.advantages, {1.84928, 1.374, 0.7});
  ExpectNear(b.value_targets, {2.34928, 1.774, 1.0});
}

//   truncated, V(s_3) = 2: delta2 = 1 + 0.9*2 - 0.3 = 2.5
//   A2 = 2.5, A1 = 0.87 + 0.72*2.5 = 2.67, A0 = 0.86 + 0.72*2.67 = 2.7824
TEST(PostprocessingTest, GaeTruncatedBootstrapsFromFinalObservationValue) {
  SampleBatch b = Trajectory(/*terminated=*/false);
  ASSERT_TRUE(ComputeGaeForTrajectory(&b, 2.0f, 0.9, 0.8, true).ok());
  ExpectNear(b.advantages, {2.7824, 2.67, 2.5});
  ExpectNear(b.value_targets, {3.2824, 3.07, 2.8});
}

//   no GAE, terminated: R = [1 + .9*1.9, 1 + .9, 1] = [2.71, 1.9, 1]; A = R - V.
TEST(PostprocessingTest, DiscountedReturnsWithoutGae) {
  SampleBatch b = Trajectory(true);
  ASSERT_TRUE(ComputeGaeForTrajectory(&b, 2.0f, 0.9, 0.8, /*use_gae=*/false).ok());
  ExpectNear(b.value_targets, {2.71, 1.9, 1.0});
  ExpectNear(b.advantages, {2.21, 1.5, 0.7});

  SampleBatch nc = Trajectory(false);
  ASSERT_TRUE(ComputeAdvantages(&nc, 0.f, 0.9, 1.0, false, /*use_critic=*/false).ok());
  ExpectNear(nc.advantages, {2.71, 1.9, 1.0});
  ExpectNear(nc.value_targets, {0, 0, 0});
}

TEST(PostprocessingTest, GaeWithLambdaOneEqualsReturnsMinusValues) {
  SampleBatch gae = Trajectory(false);
  SampleBatch mc = Trajectory(false);
  ASSERT_TRUE(ComputeAdvantages(&gae, 1.5f, 0.95, 1.0, true).ok());
  ASSERT_TRUE(ComputeAdvantages(&mc, 1.5f, 0.95, 1.0, false).ok());
  for (int t = 0; t < 3; ++t) {
    EXPECT_NEAR(gae.advantages[t], mc.advantages[t], 1e-5);
    EXPECT_NEAR(gae.value_targets[t], mc.value_targets[t], 1e-5);
  }
}

TEST(PostprocessingTest, RejectsEmptyOrInconsistentTrajectories) {
  SampleBatch empty;
  EXPECT_EQ(ComputeAdvantages(&empty, 0, 0.99, 1, true).code(), StatusCode::kInvalidArgument);
  SampleBatch b = Trajectory(true);
  b.vf_preds.pop_back();
  EXPECT_EQ(ComputeAdvantages(&b, 0, 0.99, 1, true).code(), StatusCode::kInvalidArgument);
}

TEST(PostprocessingTest, StandardizeUsesPopulationStd) {
  std::vector<float> x = {1, 2, 3, 4};
  Standardize(&x);
  const double sd = std::sqrt(1.25);  // population std of 1..4
  ExpectNear(x, {-1.5 / sd, -0.5 / sd, 0.5 / sd, 1.5 / sd});
  std::vector<float> flat = {3, 3};
  Standardize(&flat);  // std 0 -> divided by 1e-4, mean removed
  ExpectNear(flat, {0, 0});
}

}  // namespace
}  // namespace ray::rllib
