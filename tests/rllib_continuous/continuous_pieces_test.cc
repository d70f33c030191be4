// The pure pieces of the continuous-control policies (runtime/rllib/policy/
// continuous.h, exploration_noise.h) against hand computations: the squashed
// Gaussian's log-prob with its tanh correction, soft target updates, the clipped
// double-Q target, TD3's target policy smoothing and Ornstein-Uhlenbeck noise.
#include "runtime/rllib/policy/continuous.h"

#include <gtest/gtest.h>

#include <cmath>

#include "runtime/rllib/policy/exploration_noise.h"

namespace ray::rllib {
namespace {

double NormalLogp(double x, double mean, double std) {
  const double z = (x - mean) / std;
  return -0.5 * z * z - std::log(std) - 0.5 * std::log(2 * M_PI);
}

TEST(SquashedGaussianTest, LogpIsTheGaussianLessTheTanhJacobian) {
  // Two action dimensions: log pi(a) = sum_k [log N(u_k) - log(1 - tanh(u_k)^2)].
  auto mean = torch::tensor({{0.3f, -1.0f}, {0.0f, 2.0f}});
  auto log_std = torch::tensor({{-0.5f, 0.2f}, {0.0f, -1.0f}});
  auto u = torch::tensor({{0.1f, -0.4f}, {1.5f, 2.5f}});
  auto logp = SquashedGaussianLogp(mean, log_std, u);
  ASSERT_EQ(logp.sizes(), (std::vector<int64_t>{2}));
  for (int r = 0; r < 2; ++r) {
    double want = 0;
    for (int k = 0; k < 2; ++k) {
      const double m = mean[r][k].item<double>(), s = std::exp(log_std[r][k].item<double>());
      const double x = u[r][k].item<double>();
      want += NormalLogp(x, m, s) - std::log(1 - std::tanh(x) * std::tanh(x));
    }
    EXPECT_NEAR(logp[r].item<double>(), want, 1e-4) << "row " << r;
  }
}

TEST(SquashedGaussianTest, CorrectionStaysFiniteWhereTanhSaturates) {
  // 1 - tanh(20)^2 underflows in float32; the stable form gives log 4 - 40.
  auto logp = SquashedGaussianLogp(torch::tensor({{20.0f}}), torch::tensor({{0.0f}}), torch::tensor({{20.0f}}));
  EXPECT_NEAR(logp.item<double>(), NormalLogp(20, 20, 1) - (std::log(4.0) - 40.0), 1e-3);
}

TEST(SquashedGaussianTest, DensityOfSquashedActionsIntegratesToOne) {
  // Integrate exp(log pi(a)) over a in (-1, 1) with u = atanh(a).
  auto mean = torch::tensor({{0.7f}}), log_std = torch::tensor({{-0.3f}});
  double total = 0;
  const int steps = 20000;
  for (int i = 0; i < steps; ++i) {
    const double a = -1 + (i + 0.5) * 2.0 / steps;
    auto u = torch::tensor({{static_cast<float>(std::atanh(a))}});
    total += std::exp(SquashedGaussianLogp(mean, log_std, u).item<double>()) * 2.0 / steps;
  }
  EXPECT_NEAR(total, 1.0, 1e-2);
}

TEST(SquashedGaussianTest, SampleIsInsideTheUnitBoxAndDeterministicIsTanhMean) {
  torch::manual_seed(3);
  auto mean = torch::full({500, 2}, 0.5f), log_std = torch::full({500, 2}, 1.0f);
  auto [a, logp] = SquashedGaussianSample(mean, log_std, false);
  EXPECT_LE(a.abs().max().item<double>(), 1.0);  // float32 tanh saturates to 1 past |u| ~ 9
  EXPECT_EQ(logp.sizes(), (std::vector<int64_t>{500}));
  EXPECT_TRUE(torch::isfinite(logp).all().item<bool>());
  auto [det, unused] = SquashedGaussianSample(mean, log_std, true);
  EXPECT_NEAR(det[0][0].item<double>(), std::tanh(0.5), 1e-6);
}

TEST(SoftUpdateTest, MovesTargetsTauOfTheWay) {
  auto target = torch::zeros({2, 2}), source = torch::ones({2, 2});
  SoftUpdate({target}, {source}, 0.1);
  EXPECT_NEAR(target[1][1].item<double>(), 0.1, 1e-7);
  SoftUpdate({target}, {source}, 0.1);
  EXPECT_NEAR(target[0][0].item<double>(), 0.19, 1e-6);
  SoftUpdate({target}, {source}, 1.0);
  EXPECT_NEAR(target[0][1].item<double>(), 1.0, 1e-7);
  EXPECT_NEAR(source[0][0].item<double>(), 1.0, 0);
  EXPECT_THROW(SoftUpdate({target}, {torch::ones({3})}, 0.5), std::invalid_argument);
  EXPECT_THROW(SoftUpdate({target}, {}, 0.5), std::invalid_argument);
}

TEST(TwinQTargetTest, BootstrapsFromTheSmallerQAndMasksDone) {
  auto r = torch::tensor({1.0f, 2.0f, -1.0f});
  auto done = torch::tensor({0.0f, 1.0f, 0.0f});
  auto q1 = torch::tensor({10.0f, 10.0f, -3.0f});
  auto q2 = torch::tensor({8.0f, 12.0f, -2.0f});
  auto t = TwinQTarget(r, done, 0.9, q1, q2);
  EXPECT_NEAR(t[0].item<double>(), 1 + 0.9 * 8, 1e-5);
  EXPECT_NEAR(t[1].item<double>(), 2, 1e-6);
  EXPECT_NEAR(t[2].item<double>(), -1 + 0.9 * -3, 1e-5);
  auto single = TwinQTarget(r, done, 0.9, q1);
  EXPECT_NEAR(single[0].item<double>(), 1 + 0.9 * 10, 1e-5);
  EXPECT_FALSE(TwinQTarget(r, done, 0.9, q1.clone().requires_grad_(), q2).requires_grad());
}

TEST(SmoothTargetActionTest, NoiseIsClippedAndActionsStayInBounds) {
  torch::manual_seed(7);
  const int n = 4000;
  auto low = torch::tensor({-2.0f}), high = torch::tensor({2.0f});
  auto a = torch::cat({torch::full({n / 2, 1}, 0.0f), torch::full({n / 2, 1}, 1.9f)});
  auto smoothed = SmoothTargetAction(a, /*noise=*/1.0, /*noise_clip=*/0.5, low, high);
  EXPECT_LE((smoothed - a).abs().max().item<double>(), 0.5 + 1e-6);
  EXPECT_LE(smoothed.max().item<double>(), 2.0);
  auto interior = smoothed.slice(0, 0, n / 2) - a.slice(0, 0, n / 2);
  EXPECT_GT(interior.abs().max().item<double>(), 0.49);  // the clip is reached, not exceeded
  EXPECT_NEAR(interior.mean().item<double>(), 0.0, 0.03);
  auto none = SmoothTargetAction(a, 0.0, 0.5, low, high);
  EXPECT_TRUE(torch::equal(none, a));
}

TEST(UnsquashTest, MapsTheUnitBoxOntoTheBoundsAndBack) {
  auto low = torch::tensor({-2.0f, 0.0f}), high = torch::tensor({2.0f, 1.0f});
  auto unit = torch::tensor({{-1.0f, 1.0f}, {0.5f, 0.0f}});
  auto env = Unsquash(unit, low, high);
  EXPECT_NEAR(env[0][0].item<double>(), -2, 1e-6);
  EXPECT_NEAR(env[0][1].item<double>(), 1, 1e-6);
  EXPECT_NEAR(env[1][0].item<double>(), 1, 1e-6);
  EXPECT_NEAR(env[1][1].item<double>(), 0.5, 1e-6);
  EXPECT_TRUE(torch::allclose(Squash(env, low, high), unit));
}

TEST(OrnsteinUhlenbeckTest, StepsRevertTowardZeroPlusScaledNormals) {
  // x_1 = sigma e_1, x_2 = (1 - theta) x_1 + sigma e_2, with the same normals.
  std::mt19937_64 rng(1), replay(1);
  std::normal_distribution<double> normal(0.0, 1.0);
  OrnsteinUhlenbeckNoise noise(1, 0.15, 0.2);
  const double x1 = 0.2 * normal(replay);
  EXPECT_DOUBLE_EQ(noise.Step(rng)[0], x1);
  std::normal_distribution<double> normal2(0.0, 1.0);
  const double x2 = 0.85 * x1 + 0.2 * normal2(replay);
  EXPECT_NEAR(noise.Step(rng)[0], x2, 1e-12);
}

TEST(OrnsteinUhlenbeckTest, StationaryVarianceAndAutocorrelation) {
  // x' = (1 - theta) x + sigma e: var = sigma^2 / (1 - (1 - theta)^2), lag-1
  // autocorrelation 1 - theta.
  const double theta = 0.15, sigma = 0.2;
  std::mt19937_64 rng(42);
  OrnsteinUhlenbeckNoise noise(2, theta, sigma);
  for (int i = 0; i < 200; ++i) noise.Step(rng);
  const int n = 100000;
  double sum = 0, sum2 = 0, lag = 0, prev = noise.state()[1];
  for (int i = 0; i < n; ++i) {
    const double x = noise.Step(rng)[1];
    sum += x;
    sum2 += x * x;
    lag += x * prev;
    prev = x;
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  const double want_var = sigma * sigma / (1 - (1 - theta) * (1 - theta));
  EXPECT_NEAR(mean, 0.0, 0.05);
  EXPECT_NEAR(var, want_var, 0.1 * want_var);
  EXPECT_NEAR((lag / n - mean * mean) / var, 1 - theta, 0.02);
  EXPECT_THROW(OrnsteinUhlenbeckNoise(1, 0.0, 0.2), std::invalid_argument);
  EXPECT_THROW(OrnsteinUhlenbeckNoise(0, 0.1, 0.2), std::invalid_argument);
}

TEST(L2LossTest, SumsHalfSquaresOfWeightMatricesNotBiases) {
  auto w = torch::tensor({{1.0f, 2.0f}}), b = torch::tensor({3.0f});
  EXPECT_NEAR(L2Loss({w, b}).item<double>(), 0.5 * (1 + 4), 1e-6);
}

}  // namespace
}  // namespace ray::rllib
