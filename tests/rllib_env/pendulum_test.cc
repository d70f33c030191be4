// Pendulum-v1 against Gymnasium's pendulum.py, transcribed independently below.

#include "algorithms/envs/pendulum.h"

#include <gtest/gtest.h>

#include <cmath>

#include "runtime/rllib/env/env_registry.h"
#include "runtime/rllib/env/time_limit.h"
#include "tests/rllib_env/test_util.h"

namespace ray::rllib {
namespace {

using testing::ExpectObsNear;
using testing::ExpectStateNear;
using testing::Lcg;

// numpy's floored float modulo: the result takes the divisor's sign.
double PyMod(double a, double b) {
  double m = std::fmod(a, b);
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  return m;
}

// Reference: PendulumEnv.step with g = 10, m = l = 1, dt = 0.05, max_speed 8,
// max_torque 2.
struct RefPendulum {
  double th, thdot;
  double g = 10.0;

  double Step(float action) {
    const double u = std::fmin(std::fmax(action, -2.0f), 2.0f);
    const double normalized = PyMod(th + M_PI, 2 * M_PI) - M_PI;
    const double costs = normalized * normalized + 0.1 * (thdot * thdot) + 0.001 * (u * u);
    double newthdot = thdot + (3 * g / (2 * 1.0) * std::sin(th) + 3.0 / (1.0 * 1.0) * u) * 0.05;
    newthdot = std::fmin(std::fmax(newthdot, -8.0), 8.0);
    th = th + newthdot * 0.05;
    thdot = newthdot;
    return -costs;
  }
  std::vector<float> Obs() const {
    return {static_cast<float>(std::cos(th)), static_cast<float>(std::sin(th)),
            static_cast<float>(thdot)};
  }
};

// By hand from theta = 1, theta_dot = 0.5, u = 1.5 (sin 1 = 0.8414709848):
//   cost = 1^2 + 0.1 * 0.25 + 0.001 * 2.25 = 1.02725 -> reward -1.02725
//   theta_dot' = 0.5 + (15 * 0.8414709848 + 3 * 1.5) * 0.05 = 1.3561032386
//   theta'     = 1 + 1.3561032386 * 0.05 = 1.0678051619
TEST(PendulumTest, HandComputedFirstStep) {
  PendulumEnv env;
  env.Reset(0);
  env.set_state({1.0, 0.5});
  StepResult r = env.Step(Action::OfValues({1.5f}));
  EXPECT_NEAR(r.reward, -1.02725, 1e-12);
  EXPECT_NEAR(env.state()[1], 1.3561032386, 1e-9);
  EXPECT_NEAR(env.state()[0], 1.0678051619, 1e-9);
  EXPECT_FLOAT_EQ(r.obs[0], static_cast<float>(std::cos(1.0678051619)));
  EXPECT_FALSE(r.terminated);
}

// Torque is clipped to 2 for the dynamics and the cost; theta_dot is clipped to 8.
// From theta = pi/2, theta_dot = 7.9, u = 5 -> 2:
//   cost = (pi/2)^2 + 0.1 * 62.41 + 0.001 * 4 = 2.4674011003 + 6.241 + 0.004 = 8.7124011003
//   theta_dot' = clip(7.9 + (15 + 6) * 0.05, 8) = 8
TEST(PendulumTest, HandComputedClipping) {
  PendulumEnv env;
  env.Reset(0);
  env.set_state({M_PI / 2, 7.9});
  StepResult r = env.Step(Action::OfValues({5.0f}));
  EXPECT_NEAR(r.reward, -8.7124011003, 1e-9);
  EXPECT_EQ(env.state()[1], 8.0);
  EXPECT_NEAR(env.state()[0], M_PI / 2 + 0.4, 1e-12);
}

TEST(PendulumTest, AngleNormalizeMatchesNumpy) {
  EXPECT_NEAR(PendulumEnv::AngleNormalize(0.5), 0.5, 1e-15);
  EXPECT_NEAR(PendulumEnv::AngleNormalize(-0.5), -0.5, 1e-15);
  EXPECT_NEAR(PendulumEnv::AngleNormalize(3 * M_PI / 2), -M_PI / 2, 1e-12);
  EXPECT_NEAR(PendulumEnv::AngleNormalize(-7.0), -7.0 + 2 * M_PI, 1e-12);
  EXPECT_EQ(PendulumEnv::AngleNormalize(M_PI), -M_PI);  // (2 pi) mod 2 pi == 0
}

void RunTrajectory(RefPendulum ref, uint64_t action_seed) {
  SCOPED_TRACE(::testing::Message() << "start [" << ref.th << ", " << ref.thdot << "]");
  TimeLimit env(std::make_unique<PendulumEnv>(), 200);  // Pendulum-v1's limit
  env.Reset(2);
  auto* pendulum = dynamic_cast<PendulumEnv*>(env.unwrapped());
  ASSERT_NE(pendulum, nullptr);
  pendulum->set_state({ref.th, ref.thdot});
  Lcg lcg(action_seed);
  for (int t = 1; t <= 200; ++t) {
    // Beyond the torque limit at times, to exercise the clip.
    const float u = static_cast<float>(lcg.Real(-3.0, 3.0));
    StepResult got = env.Step(Action::OfValues({u}));
    const double reward = ref.Step(u);
    ExpectStateNear(pendulum->state()[0], ref.th, t, "theta");
    ExpectStateNear(pendulum->state()[1], ref.thdot, t, "theta_dot");
    ExpectObsNear(got.obs, ref.Obs(), t);
    ExpectStateNear(got.reward, reward, t, "reward");
    ASSERT_FALSE(got.terminated);
    ASSERT_EQ(got.truncated, t == 200) << "step " << t;
  }
}

TEST(PendulumTest, TrajectoriesMatchGymnasium) {
  RunTrajectory({0.0, 0.0}, 1);
  RunTrajectory({3.0, -0.9}, 2);
  RunTrajectory({-3.1, 0.7}, 3);
  RunTrajectory({M_PI, 7.99}, 4);
  RunTrajectory({0.3, -7.5}, 5);
}

TEST(PendulumTest, GravityFromConfig) {
  PendulumEnv pendulum(9.81);
  pendulum.Reset(0);
  RefPendulum ref{0.4, 0.1, 9.81};
  pendulum.set_state({ref.th, ref.thdot});
  for (int t = 1; t <= 10; ++t) {
    StepResult got = pendulum.Step(Action::OfValues({0.25f}));
    EXPECT_NEAR(got.reward, ref.Step(0.25f), 1e-12);
    ExpectObsNear(got.obs, ref.Obs(), t);
  }
  // The registry's Pendulum-v1 (the env plugin's) reads g from env_config: it steps
  // as the class with that g does, not as the default.
  auto made = MakeEnv("Pendulum-v1", {{"g", 9.81}});
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  PendulumEnv same(9.81), other(10.0);
  EXPECT_EQ((*made)->Reset(7), same.Reset(7));
  other.Reset(7);
  bool differs = false;
  for (int t = 1; t <= 20; ++t) {
    Observation got = (*made)->Step(Action::OfValues({0.5f})).obs;
    EXPECT_EQ(got, same.Step(Action::OfValues({0.5f})).obs) << t;
    differs |= got != other.Step(Action::OfValues({0.5f})).obs;
  }
  EXPECT_TRUE(differs);
}

TEST(PendulumTest, ResetStateInGymnasiumRange) {
  PendulumEnv env;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    Observation obs = env.Reset(seed);
    EXPECT_GE(env.state()[0], -M_PI);
    EXPECT_LT(env.state()[0], M_PI);
    EXPECT_GE(env.state()[1], -1.0);
    EXPECT_LT(env.state()[1], 1.0);
    EXPECT_EQ(obs[2], static_cast<float>(env.state()[1]));
  }
}

TEST(PendulumTest, Spaces) {
  PendulumEnv env;
  const Box& action = env.action_space().box();
  EXPECT_EQ(action.ToString(), "Box(1,)");
  EXPECT_EQ(action.low()[0], -2.0f);
  EXPECT_EQ(action.high()[0], 2.0f);
  const Box& obs = env.observation_space().box();
  EXPECT_EQ(obs.high(), (std::vector<float>{1.0f, 1.0f, 8.0f}));
  EXPECT_EQ(obs.low(), (std::vector<float>{-1.0f, -1.0f, -8.0f}));
  auto spec = GetEnvSpec("Pendulum-v1");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->max_episode_steps, 200);
  EXPECT_FALSE(spec->reward_threshold.has_value());
}

}  // namespace
}  // namespace ray::rllib
