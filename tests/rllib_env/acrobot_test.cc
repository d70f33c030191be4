// Acrobot-v1 against Gymnasium's acrobot.py ("book" dynamics, RK4), transcribed
// independently below.

#include "algorithms/envs/acrobot.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include "runtime/rllib/env/env_registry.h"
#include "runtime/rllib/env/time_limit.h"
#include "tests/rllib_env/test_util.h"

namespace ray::rllib {
namespace {

using testing::ExpectObsNear;
using testing::ExpectStateNear;
using testing::Lcg;

using Vec5 = std::array<double, 5>;

// Reference: AcrobotEnv._dsdt with all link constants written out (m = 1, l1 = 1,
// lc = 0.5, I = 1, g = 9.8), book dynamics unless `nips`.
Vec5 RefDsdt(const Vec5& y, bool nips) {
  const double a = y[4], th1 = y[0], th2 = y[1], dth1 = y[2], dth2 = y[3];
  const double d1 = 1.0 * (0.5 * 0.5) +
                    1.0 * ((1.0 * 1.0) + (0.5 * 0.5) + 2 * 1.0 * 0.5 * std::cos(th2)) + 1.0 + 1.0;
  const double d2 = 1.0 * ((0.5 * 0.5) + 1.0 * 0.5 * std::cos(th2)) + 1.0;
  const double phi2 = 1.0 * 0.5 * 9.8 * std::cos(th1 + th2 - M_PI / 2.0);
  const double phi1 = -1.0 * 1.0 * 0.5 * (dth2 * dth2) * std::sin(th2) -
                      2 * 1.0 * 1.0 * 0.5 * dth2 * dth1 * std::sin(th2) +
                      (1.0 * 0.5 + 1.0 * 1.0) * 9.8 * std::cos(th1 - M_PI / 2) + phi2;
  const double denom = 1.0 * (0.5 * 0.5) + 1.0 - (d2 * d2) / d1;
  const double ddth2 =
      nips ? (a + d2 / d1 * phi1 - phi2) / denom
           : (a + d2 / d1 * phi1 - 1.0 * 1.0 * 0.5 * (dth1 * dth1) * std::sin(th2) - phi2) / denom;
  const double ddth1 = -(d2 * ddth2 + phi1) / d1;
  return {dth1, dth2, ddth1, ddth2, 0.0};
}

struct RefAcrobot {
  std::array<double, 4> s;
  bool nips = false;

  // Returns (reward, terminated).
  std::pair<double, bool> Step(int action) {
    const double torque = action == 0 ? -1.0 : (action == 1 ? 0.0 : 1.0);
    Vec5 y0 = {s[0], s[1], s[2], s[3], torque};
    const double dt = 0.2, half = 0.1;
    Vec5 k1 = RefDsdt(y0, nips), k2, k3, k4, tmp;
    for (int i = 0; i < 5; ++i) tmp[i] = y0[i] + half * k1[i];
    k2 = RefDsdt(tmp, nips);
    for (int i = 0; i < 5; ++i) tmp[i] = y0[i] + half * k2[i];
    k3 = RefDsdt(tmp, nips);
    for (int i = 0; i < 5; ++i) tmp[i] = y0[i] + dt * k3[i];
    k4 = RefDsdt(tmp, nips);
    for (int i = 0; i < 4; ++i) s[i] = y0[i] + dt / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    for (int i = 0; i < 2; ++i) {
      while (s[i] > M_PI) s[i] -= 2 * M_PI;
      while (s[i] < -M_PI) s[i] += 2 * M_PI;
    }
    s[2] = std::fmin(std::fmax(s[2], -4 * M_PI), 4 * M_PI);
    s[3] = std::fmin(std::fmax(s[3], -9 * M_PI), 9 * M_PI);
    const bool terminated = -std::cos(s[0]) - std::cos(s[1] + s[0]) > 1.0;
    return {terminated ? 0.0 : -1.0, terminated};
  }
  std::vector<float> Obs() const {
    return {static_cast<float>(std::cos(s[0])), static_cast<float>(std::sin(s[0])),
            static_cast<float>(std::cos(s[1])), static_cast<float>(std::sin(s[1])),
            static_cast<float>(s[2]),           static_cast<float>(s[3])};
  }
};

// By hand: at rest hanging down (all zero), torque +1. phi1 = phi2 = 0 (up to
// cos(-pi/2) ~ 6e-17), d1 = 0.25 + (1 + 0.25 + 1) + 2 = 4.5, d2 = 0.75 + 1 = 1.75,
// so ddtheta2 = 1 / (1.25 - 1.75^2 / 4.5) = 72/41 = 1.7561 and
// ddtheta1 = -(1.75 * 72/41) / 4.5 = -28/41 = -0.6829. Over dt = 0.2 the angles
// stay small, so to first order theta ~ acc * dt^2 / 2 and dtheta ~ acc * dt:
//   theta1 ~ -0.01366, theta2 ~ 0.03512, dtheta1 ~ -0.1366, dtheta2 ~ 0.3512.
// Gravity and the coupling terms act as the links move, so allow 10% (the exact RK4 values are
// checked against the reference trajectory below).
TEST(AcrobotTest, HandEstimatedFirstStep) {
  AcrobotEnv env;
  env.Reset(0);
  env.set_state({0.0, 0.0, 0.0, 0.0});
  StepResult r = env.Step(Action::OfIndex(2));
  EXPECT_NEAR(env.state()[0], -28.0 / 41 * 0.02, 0.1 * 28.0 / 41 * 0.02);
  EXPECT_NEAR(env.state()[1], 72.0 / 41 * 0.02, 0.1 * 72.0 / 41 * 0.02);
  EXPECT_NEAR(env.state()[2], -28.0 / 41 * 0.2, 0.1 * 28.0 / 41 * 0.2);
  EXPECT_NEAR(env.state()[3], 72.0 / 41 * 0.2, 0.1 * 72.0 / 41 * 0.2);
  EXPECT_EQ(r.reward, -1.0);
  EXPECT_FALSE(r.terminated);
  // Torque 0 from rest: nothing moves (up to the cos(-pi/2) rounding).
  env.set_state({0.0, 0.0, 0.0, 0.0});
  env.Step(Action::OfIndex(1));
  for (double v : env.state()) EXPECT_NEAR(v, 0.0, 1e-14);
}

// Termination: tip height -cos(th1) - cos(th1 + th2) > 1. Upright (pi, 0) is height 2.
TEST(AcrobotTest, TerminatesAboveTheLine) {
  AcrobotEnv env;
  env.Reset(0);
  env.set_state({M_PI - 0.01, 0.0, 0.0, 0.0});
  StepResult r = env.Step(Action::OfIndex(1));
  EXPECT_TRUE(r.terminated);
  EXPECT_EQ(r.reward, 0.0);
}

void RunTrajectory(RefAcrobot ref, uint64_t action_seed, bool pump) {
  SCOPED_TRACE(::testing::Message() << "start [" << ref.s[0] << ", " << ref.s[1] << ", " << ref.s[2]
                                    << ", " << ref.s[3] << "]");
  AcrobotOptions options;
  options.nips_dynamics = ref.nips;
  TimeLimit env(std::make_unique<AcrobotEnv>(options), 500);  // Acrobot-v1's limit
  env.Reset(5);
  auto* acrobot = dynamic_cast<AcrobotEnv*>(env.unwrapped());
  ASSERT_NE(acrobot, nullptr);
  acrobot->set_state(ref.s);
  Lcg lcg(action_seed);
  for (int t = 1; t <= 500; ++t) {
    // Pumping: torque in the direction of the first link's swing.
    const int action = pump ? (ref.s[2] >= 0 ? 2 : 0) : lcg.Index(3);
    StepResult got = env.Step(Action::OfIndex(action));
    auto [reward, terminated] = ref.Step(action);
    for (int i = 0; i < 4; ++i) ExpectStateNear(acrobot->state()[i], ref.s[i], t, "state");
    ExpectObsNear(got.obs, ref.Obs(), t);
    ASSERT_EQ(got.reward, reward) << "step " << t;
    ASSERT_EQ(got.terminated, terminated) << "step " << t;
    ASSERT_EQ(got.truncated, t == 500) << "step " << t;
    if (terminated) return;
  }
}

TEST(AcrobotTest, TrajectoriesMatchGymnasium) {
  RunTrajectory({{0.0, 0.0, 0.0, 0.0}}, 1, false);
  RunTrajectory({{0.05, -0.08, 0.02, 0.09}}, 2, false);
  RunTrajectory({{3.1, -3.1, 12.0, -28.0}}, 3, false);  // wraps and hits the bounds
  RunTrajectory({{0.1, 0.1, 0.0, 0.0}}, 0, /*pump=*/true);
}

TEST(AcrobotTest, NipsDynamicsMatchGymnasium) {
  RefAcrobot ref{{0.03, 0.04, -0.05, 0.06}};
  ref.nips = true;
  RunTrajectory(ref, 6, false);
}

TEST(AcrobotTest, ResetStateInGymnasiumRangeAndFloat32) {
  AcrobotEnv env;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    env.Reset(seed);
    for (double v : env.state()) {
      EXPECT_GE(v, -0.1);
      EXPECT_LE(v, 0.1);
      EXPECT_EQ(v, static_cast<double>(static_cast<float>(v)));  // .astype(np.float32)
    }
  }
}

TEST(AcrobotTest, SpacesAndSpec) {
  AcrobotEnv env;
  EXPECT_EQ(env.action_space().ToString(), "Discrete(3)");
  const Box& obs = env.observation_space().box();
  EXPECT_EQ(obs.ToString(), "Box(6,)");
  EXPECT_EQ(obs.high()[4], static_cast<float>(4 * M_PI));
  EXPECT_EQ(obs.high()[5], static_cast<float>(9 * M_PI));
  auto spec = GetEnvSpec("Acrobot-v1");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->max_episode_steps, 500);
  EXPECT_EQ(spec->reward_threshold, -100.0);
  EXPECT_FALSE(MakeEnv("Acrobot-v1", {{"book_or_nips", "paper"}}).ok());
}

}  // namespace
}  // namespace ray::rllib
