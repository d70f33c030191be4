// CartPole-v0/v1 against Gymnasium's cartpole.py, transcribed independently below.

#include "algorithms/envs/cartpole.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "runtime/rllib/env/env_registry.h"
#include "runtime/rllib/env/time_limit.h"
#include "tests/rllib_env/test_util.h"

namespace ray::rllib {
namespace {

using testing::ExpectObsNear;
using testing::ExpectStateNear;
using testing::Lcg;

// Reference: gymnasium/envs/classic_control/cartpole.py, CartPoleEnv.step, euler
// integrator, written out with Gymnasium's literal constants.
struct RefCartPole {
  double x, x_dot, theta, theta_dot;
  bool fell = false;  // steps_beyond_terminated is not None
  bool semi_implicit = false;

  // Returns (reward, terminated).
  std::pair<double, bool> Step(int action) {
    const double gravity = 9.8, masspole = 0.1, total_mass = 0.1 + 1.0, length = 0.5;
    const double polemass_length = 0.1 * 0.5, tau = 0.02;
    const double force = action == 1 ? 10.0 : -10.0;
    const double c = std::cos(theta), s = std::sin(theta);
    const double temp = (force + polemass_length * (theta_dot * theta_dot) * s) / total_mass;
    const double thetaacc =
        (gravity * s - c * temp) / (length * (4.0 / 3.0 - masspole * (c * c) / total_mass));
    const double xacc = temp - polemass_length * thetaacc * c / total_mass;
    if (!semi_implicit) {
      x = x + tau * x_dot;
      x_dot = x_dot + tau * xacc;
      theta = theta + tau * theta_dot;
      theta_dot = theta_dot + tau * thetaacc;
    } else {
      x_dot = x_dot + tau * xacc;
      x = x + tau * x_dot;
      theta_dot = theta_dot + tau * thetaacc;
      theta = theta + tau * theta_dot;
    }
    const double theta_limit = 12 * 2 * M_PI / 360;
    const bool terminated = x < -2.4 || x > 2.4 || theta < -theta_limit || theta > theta_limit;
    double reward = 1.0;
    if (terminated) {
      reward = fell ? 0.0 : 1.0;
      fell = true;
    }
    return {reward, terminated};
  }
  std::vector<float> Obs() const {
    return {static_cast<float>(x), static_cast<float>(x_dot), static_cast<float>(theta),
            static_cast<float>(theta_dot)};
  }
};

CartPoleEnv* Unwrap(Env& env) {
  auto* cartpole = dynamic_cast<CartPoleEnv*>(env.unwrapped());
  EXPECT_NE(cartpole, nullptr);
  return cartpole;
}

// Hand-derived from the equations (sin 0.05 = 0.0499791693, cos 0.05 = 0.9987502604):
//   temp     = (10 + 0.05 * 0^2 * sin) / 1.1                  = 9.0909090909
//   thetaacc = (9.8 sin - cos * temp) / (0.5 (4/3 - 0.1 cos^2 / 1.1))
//            = (0.4897958589 - 9.0795478218) / (0.5 * 1.2426513258) = -13.8248787644
//   xacc     = temp - 0.05 * thetaacc * cos / 1.1             = 9.7185273303
//   Euler:  x = 0 + 0.02 * 0 = 0;  x_dot = 0.02 * xacc = 0.1943705466
//           theta = 0.05 + 0.02 * 0 = 0.05;  theta_dot = 0.02 * thetaacc = -0.2764975753
TEST(CartPoleTest, HandComputedFirstStep) {
  CartPoleEnv env;
  env.Reset(0);
  env.set_state({0.0, 0.0, 0.05, 0.0});
  StepResult r = env.Step(Action::OfIndex(1));
  EXPECT_DOUBLE_EQ(env.state()[0], 0.0);
  EXPECT_NEAR(env.state()[1], 0.1943705466, 1e-9);
  EXPECT_DOUBLE_EQ(env.state()[2], 0.05);
  EXPECT_NEAR(env.state()[3], -0.2764975753, 1e-9);
  EXPECT_EQ(r.reward, 1.0);
  EXPECT_FALSE(r.terminated);
  EXPECT_FALSE(r.truncated);
  EXPECT_FLOAT_EQ(r.obs[1], 0.1943705466f);
}

// Semi-implicit Euler uses the new velocities for the positions:
// x = 0.02 * 0.1943705466 = 0.0038874109, theta = 0.05 + 0.02 * -0.2764975753 = 0.0444700485.
TEST(CartPoleTest, HandComputedSemiImplicitStep) {
  CartPoleEnv env(CartPoleOptions{.semi_implicit_euler = true});
  env.Reset(0);
  env.set_state({0.0, 0.0, 0.05, 0.0});
  env.Step(Action::OfIndex(1));
  EXPECT_NEAR(env.state()[0], 0.0038874109, 1e-9);
  EXPECT_NEAR(env.state()[2], 0.0444700485, 1e-9);
}

void RunTrajectory(RefCartPole ref, uint64_t action_seed, int steps, bool constant_right) {
  SCOPED_TRACE(::testing::Message() << "start [" << ref.x << ", " << ref.x_dot << ", " << ref.theta
                                    << ", " << ref.theta_dot << "]");
  // The class itself under CartPole-v1's time limit (the registry's copy lives in the
  // env plugin, whose state cannot be set).
  TimeLimit env(std::make_unique<CartPoleEnv>(), 500);
  env.Reset(1);
  CartPoleEnv* cartpole = Unwrap(env);
  cartpole->set_state({ref.x, ref.x_dot, ref.theta, ref.theta_dot});
  Lcg lcg(action_seed);
  int terminated_at = -1;
  for (int t = 1; t <= steps; ++t) {
    const int action = constant_right ? 1 : lcg.Index(2);
    StepResult got = env.Step(Action::OfIndex(action));
    auto [reward, terminated] = ref.Step(action);
    ExpectStateNear(cartpole->state()[0], ref.x, t, "x");
    ExpectStateNear(cartpole->state()[1], ref.x_dot, t, "x_dot");
    ExpectStateNear(cartpole->state()[2], ref.theta, t, "theta");
    ExpectStateNear(cartpole->state()[3], ref.theta_dot, t, "theta_dot");
    ExpectObsNear(got.obs, ref.Obs(), t);
    ASSERT_EQ(got.reward, reward) << "step " << t;
    ASSERT_EQ(got.terminated, terminated) << "step " << t;
    ASSERT_EQ(got.truncated, t >= 500) << "step " << t;
    if (terminated && terminated_at < 0) terminated_at = t;
    // Step a few times past termination (Gymnasium: reward 0, still terminated).
    if (terminated_at > 0 && t >= terminated_at + 3) break;
  }
}

TEST(CartPoleTest, TrajectoriesMatchGymnasium) {
  RunTrajectory({0.0, 0.0, 0.05, 0.0}, 1, 600, /*constant_right=*/true);
  RunTrajectory({0.01, -0.02, 0.03, -0.04}, 7, 600, false);
  RunTrajectory({-0.04, 0.04, -0.01, 0.02}, 8, 600, false);
  RunTrajectory({2.3, 1.0, 0.0, 0.0}, 9, 600, false);     // leaves through x
  RunTrajectory({0.0, 0.0, -0.2, -1.0}, 10, 600, false);  // falls through -theta
}

TEST(CartPoleTest, SemiImplicitTrajectoryMatchesGymnasium) {
  CartPoleEnv env(CartPoleOptions{.semi_implicit_euler = true});
  env.Reset(3);
  RefCartPole ref{0.02, -0.01, 0.04, 0.03};
  ref.semi_implicit = true;
  env.set_state({ref.x, ref.x_dot, ref.theta, ref.theta_dot});
  Lcg lcg(11);
  for (int t = 1; t <= 100; ++t) {
    const int action = lcg.Index(2);
    StepResult got = env.Step(Action::OfIndex(action));
    auto [reward, terminated] = ref.Step(action);
    ExpectObsNear(got.obs, ref.Obs(), t);
    ASSERT_EQ(got.terminated, terminated);
    if (terminated) break;
  }
}

// A balancing controller keeps the pole up, so CartPole-v1 runs into its TimeLimit:
// truncated exactly at step 500, never terminated.
TEST(CartPoleTest, TruncatesAtExactly500StepsForV1And200ForV0) {
  for (auto [name, limit] : {std::pair{"CartPole-v1", 500}, std::pair{"CartPole-v0", 200}}) {
    auto made = MakeEnv(name);
    ASSERT_TRUE(made.ok());
    Env& env = **made;
    Observation obs = env.Reset(5);
    double total = 0;
    for (int t = 1; t <= limit; ++t) {
      // PD on the pole angle plus a little on the cart position.
      const double u = obs[2] * 10 + obs[3] * 2 + obs[0] * 0.1 + obs[1] * 0.5;
      StepResult r = env.Step(Action::OfIndex(u > 0 ? 1 : 0));
      total += r.reward;
      ASSERT_FALSE(r.terminated) << name << " step " << t;
      ASSERT_EQ(r.truncated, t == limit) << name << " step " << t;
      obs = r.obs;
    }
    EXPECT_EQ(total, limit);
    EXPECT_GE(total, env.spec().reward_threshold.value());
  }
}

TEST(CartPoleTest, RewardAfterTerminationIsZeroAndSuttonBartoVariant) {
  CartPoleEnv env;
  env.Reset(0);
  env.set_state({0.0, 0.0, 0.2, 1.0});  // theta becomes 0.2 + 0.02 * 1 > 0.2094
  EXPECT_FALSE(env.steps_beyond_terminated().has_value());
  StepResult r = env.Step(Action::OfIndex(0));
  ASSERT_TRUE(r.terminated);
  EXPECT_EQ(r.reward, 1.0);
  EXPECT_EQ(env.steps_beyond_terminated(), 0);
  r = env.Step(Action::OfIndex(0));
  EXPECT_TRUE(r.terminated);
  EXPECT_EQ(r.reward, 0.0);
  EXPECT_EQ(env.steps_beyond_terminated(), 1);
  env.Reset(std::nullopt);
  EXPECT_FALSE(env.steps_beyond_terminated().has_value());

  CartPoleEnv sb(CartPoleOptions{.sutton_barto_reward = true});
  sb.Reset(0);
  sb.set_state({0.0, 0.0, 0.0, 0.0});
  EXPECT_EQ(sb.Step(Action::OfIndex(1)).reward, 0.0);
  sb.set_state({0.0, 0.0, 0.2, 1.0});
  EXPECT_EQ(sb.Step(Action::OfIndex(0)).reward, -1.0);
  EXPECT_EQ(sb.Step(Action::OfIndex(0)).reward, -1.0);
}

TEST(CartPoleTest, ResetStateInGymnasiumRange) {
  CartPoleEnv env;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    Observation obs = env.Reset(seed);
    for (int i = 0; i < 4; ++i) {
      EXPECT_GE(env.state()[i], -0.05);
      EXPECT_LT(env.state()[i], 0.05);
      EXPECT_EQ(obs[i], static_cast<float>(env.state()[i]));
    }
  }
}

TEST(CartPoleTest, SpacesMatchGymnasium) {
  CartPoleEnv env;
  EXPECT_EQ(env.action_space().ToString(), "Discrete(2)");
  EXPECT_EQ(env.action_space().discrete().n(), 2);
  const Box& box = env.observation_space().box();
  EXPECT_EQ(box.ToString(), "Box(4,)");
  EXPECT_EQ(box.high()[0], 4.8f);
  EXPECT_EQ(box.high()[2], static_cast<float>(0.41887902047863906));
  EXPECT_TRUE(std::isinf(box.high()[1]) && std::isinf(box.high()[3]));
  EXPECT_EQ(box.low()[0], -4.8f);
}

TEST(CartPoleTest, ConfigIsValidated) {
  EXPECT_TRUE(MakeEnv("CartPole-v1", {{"sutton_barto_reward", true}}).ok());
  auto bad = MakeEnv("CartPole-v1", {{"sutton_barto_reward", "yes"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  auto cost = MakeEnv("CartPole-v1", {{"step_cost_us", -1}});
  ASSERT_FALSE(cost.ok());
  EXPECT_NE(cost.status().message().find("step_cost_us"), std::string::npos) << cost.status().ToString();
}

// env_config step_cost_us (a benchmark knob): each step burns that much time and the
// dynamics are unchanged.
TEST(CartPoleTest, StepCostMakesEachStepTakeLongerWithTheSameDynamics) {
  CartPoleEnv plain, costly(CartPoleOptions{.step_cost_us = 2000});
  plain.Reset(3);
  costly.Reset(3);
  const auto start = std::chrono::steady_clock::now();
  for (int t = 0; t < 5; ++t) {
    StepResult a = plain.Step(Action::OfIndex(t % 2)), b = costly.Step(Action::OfIndex(t % 2));
    EXPECT_EQ(a.obs, b.obs) << t;
  }
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(10));
}

}  // namespace
}  // namespace ray::rllib
