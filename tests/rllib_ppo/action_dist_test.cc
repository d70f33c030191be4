#include "runtime/rllib/policy/action_dist.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ray::rllib {
namespace {

const double kLog2Pi = std::log(2.0 * M_PI);

TEST(CategoricalTest, LogpEntropyKlMatchClosedForms) {
  // logits [0, ln 2] -> p = [1/3, 2/3]; q = uniform.
  Categorical p(torch::tensor({{0.0, std::log(2.0)}}, torch::kFloat32));
  Categorical q(torch::zeros({1, 2}));
  EXPECT_NEAR(p.Logp(torch::tensor({1.0f})).item<double>(), std::log(2.0 / 3.0), 1e-6);
  EXPECT_NEAR(p.Logp(torch::tensor({0}, torch::kLong)).item<double>(), std::log(1.0 / 3.0), 1e-6);
  const double entropy = -(1.0 / 3 * std::log(1.0 / 3) + 2.0 / 3 * std::log(2.0 / 3));
  EXPECT_NEAR(p.Entropy().item<double>(), entropy, 1e-6);
  const double kl_pq = 1.0 / 3 * std::log((1.0 / 3) / 0.5) + 2.0 / 3 * std::log((2.0 / 3) / 0.5);
  EXPECT_NEAR(p.Kl(q).item<double>(), kl_pq, 1e-6);
  EXPECT_NEAR(p.Kl(p).item<double>(), 0.0, 1e-7);
  EXPECT_EQ(p.DeterministicSample().item<int64_t>(), 1);
}

TEST(CategoricalTest, SampleFrequenciesFollowProbabilities) {
  torch::manual_seed(0);
  Categorical p(torch::tensor({{0.0, std::log(3.0)}}, torch::kFloat32).repeat({20000, 1}));
  const double ones = p.Sample().to(torch::kDouble).mean().item<double>();
  EXPECT_NEAR(ones, 0.75, 0.02);
}

TEST(DiagGaussianTest, LogpEntropyKlMatchClosedForms) {
  // mean [0, 1], log_std [0, ln 2]  (std [1, 2]); action [1, 1].
  DiagGaussian p(torch::tensor({{0.0, 1.0, 0.0, std::log(2.0)}}, torch::kFloat32));
  const double logp = (-0.5 - 0.5 * kLog2Pi) + (-std::log(2.0) - 0.5 * kLog2Pi);
  EXPECT_NEAR(p.Logp(torch::tensor({{1.0f, 1.0f}})).item<double>(), logp, 1e-5);
  const double entropy = 2 * (0.5 + 0.5 * kLog2Pi) + std::log(2.0);
  EXPECT_NEAR(p.Entropy().item<double>(), entropy, 1e-5);
  // q: mean [1, 1], std [1, 1]. KL per dim = log(sq/sp) + (sp^2 + dmu^2) / (2 sq^2) - 1/2:
  //   dim 0: 0 + (1 + 1)/2 - 0.5 = 0.5;  dim 1: -ln 2 + (4 + 0)/2 - 0.5 = 1.5 - ln 2.
  DiagGaussian q(torch::tensor({{1.0, 1.0, 0.0, 0.0}}, torch::kFloat32));
  EXPECT_NEAR(p.Kl(q).item<double>(), 2.0 - std::log(2.0), 1e-5);
  EXPECT_NEAR(p.Kl(p).item<double>(), 0.0, 1e-6);
  EXPECT_TRUE(torch::allclose(p.DeterministicSample(), torch::tensor({{0.0f, 1.0f}})));
}

TEST(DiagGaussianTest, SampleMomentsFollowParameters) {
  torch::manual_seed(0);
  DiagGaussian p(torch::tensor({{0.5, -1.0, std::log(0.5), 0.0}}, torch::kFloat32)
                     .repeat({20000, 1}));
  auto s = p.Sample();
  EXPECT_NEAR(s.select(1, 0).mean().item<double>(), 0.5, 0.02);
  EXPECT_NEAR(s.select(1, 0).std().item<double>(), 0.5, 0.02);
  EXPECT_NEAR(s.select(1, 1).mean().item<double>(), -1.0, 0.03);
  EXPECT_NEAR(s.select(1, 1).std().item<double>(), 1.0, 0.03);
}

}  // namespace
}  // namespace ray::rllib
