// MountainCar-v0 and MountainCarContinuous-v0 against Gymnasium's mountain_car.py and
// continuous_mountain_car.py, transcribed independently below.

#include "algorithms/envs/mountain_car.h"

#include <gtest/gtest.h>

#include <cmath>

#include "runtime/rllib/env/env_registry.h"
#include "runtime/rllib/env/time_limit.h"
#include "algorithms/envs/mountain_car_continuous.h"
#include "tests/rllib_env/test_util.h"

namespace ray::rllib {
namespace {

using testing::ExpectObsNear;
using testing::ExpectStateNear;
using testing::Lcg;

// Reference: MountainCarEnv.step (force 0.001, gravity 0.0025, goal 0.5, speed 0.07).
struct RefMountainCar {
  double position, velocity;

  bool Step(int action) {
    velocity += (action - 1) * 0.001 + std::cos(3 * position) * (-0.0025);
    velocity = std::fmin(std::fmax(velocity, -0.07), 0.07);
    position += velocity;
    position = std::fmin(std::fmax(position, -1.2), 0.6);
    if (position == -1.2 && velocity < 0) velocity = 0;
    return position >= 0.5 && velocity >= 0;
  }
  std::vector<float> Obs() const {
    return {static_cast<float>(position), static_cast<float>(velocity)};
  }
};

// Reference: Continuous_MountainCarEnv.step (power 0.0015, goal 0.45); the state is
// stored as float32 after every step.
struct RefContinuous {
  double position, velocity;

  // Returns (reward, terminated).
  std::pair<double, bool> Step(float action) {
    const double force = std::fmin(std::fmax(static_cast<double>(action), -1.0), 1.0);
    velocity += force * 0.0015 - 0.0025 * std::cos(3 * position);
    if (velocity > 0.07) velocity = 0.07;
    if (velocity < -0.07) velocity = -0.07;
    position += velocity;
    if (position > 0.6) position = 0.6;
    if (position < -1.2) position = -1.2;
    if (position == -1.2 && velocity < 0) velocity = 0;
    const bool terminated = position >= 0.45 && velocity >= 0;
    double reward = terminated ? 100.0 : 0.0;
    reward -= static_cast<double>(action) * static_cast<double>(action) * 0.1;
    position = static_cast<float>(position);
    velocity = static_cast<float>(velocity);
    return {reward, terminated};
  }
  std::vector<float> Obs() const {
    return {static_cast<float>(position), static_cast<float>(velocity)};
  }
};

// By hand from (-0.5, 0), action 2 (cos(-1.5) = 0.0707372017):
//   velocity = (2 - 1) * 0.001 + 0.0707372017 * (-0.0025) = 0.000823157
//   position = -0.5 + 0.000823157 = -0.499176843
TEST(MountainCarTest, HandComputedFirstStep) {
  MountainCarEnv env;
  env.Reset(0);
  env.set_state({-0.5, 0.0});
  StepResult r = env.Step(Action::OfIndex(2));
  EXPECT_NEAR(env.state()[1], 0.000823157, 1e-9);
  EXPECT_NEAR(env.state()[0], -0.499176843, 1e-9);
  EXPECT_EQ(r.reward, -1.0);
  EXPECT_FALSE(r.terminated);
}

// The left wall is inelastic: from (-1.19, -0.05) with action 0 the car hits -1.2 and
// its velocity becomes 0.
TEST(MountainCarTest, LeftWallStopsTheCar) {
  MountainCarEnv env;
  env.Reset(0);
  env.set_state({-1.19, -0.05});
  StepResult r = env.Step(Action::OfIndex(0));
  EXPECT_EQ(env.state()[0], -1.2);
  EXPECT_EQ(env.state()[1], 0.0);
  EXPECT_EQ(r.obs[0], -1.2f);
}

// State-dependent "energy pumping" policy: push in the direction of motion. Reaches the
// goal well within 200 steps from the valley.
int PumpAction(double velocity) { return velocity >= 0 ? 2 : 0; }

void RunDiscrete(RefMountainCar ref, uint64_t action_seed, bool pump) {
  SCOPED_TRACE(::testing::Message() << "start [" << ref.position << ", " << ref.velocity << "]");
  TimeLimit env(std::make_unique<MountainCarEnv>(), 200);  // MountainCar-v0's limit
  env.Reset(3);
  auto* car = dynamic_cast<MountainCarEnv*>(env.unwrapped());
  ASSERT_NE(car, nullptr);
  car->set_state({ref.position, ref.velocity});
  Lcg lcg(action_seed);
  for (int t = 1; t <= 200; ++t) {
    const int action = pump ? PumpAction(ref.velocity) : lcg.Index(3);
    StepResult got = env.Step(Action::OfIndex(action));
    const bool terminated = ref.Step(action);
    ExpectStateNear(car->state()[0], ref.position, t, "position");
    ExpectStateNear(car->state()[1], ref.velocity, t, "velocity");
    ExpectObsNear(got.obs, ref.Obs(), t);
    ASSERT_EQ(got.reward, -1.0);
    ASSERT_EQ(got.terminated, terminated) << "step " << t;
    ASSERT_EQ(got.truncated, t == 200) << "step " << t;
    if (terminated) {
      EXPECT_TRUE(pump || ref.position >= 0.5);
      return;
    }
  }
  EXPECT_FALSE(pump) << "the pumping policy should reach the goal";
}

TEST(MountainCarTest, TrajectoriesMatchGymnasium) {
  RunDiscrete({-0.5, 0.0}, 1, false);
  RunDiscrete({-0.45, 0.0}, 2, false);
  RunDiscrete({-1.15, -0.06}, 3, false);  // runs into the left wall
  RunDiscrete({0.45, 0.05}, 4, false);    // starts next to the goal
  RunDiscrete({-0.55, 0.0}, 0, /*pump=*/true);
  RunDiscrete({-0.41, 0.0}, 0, /*pump=*/true);
}

TEST(MountainCarTest, ResetStateInGymnasiumRange) {
  MountainCarEnv env;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    env.Reset(seed);
    EXPECT_GE(env.state()[0], -0.6);
    EXPECT_LT(env.state()[0], -0.4);
    EXPECT_EQ(env.state()[1], 0.0);
  }
}

TEST(MountainCarTest, SpacesAndSpec) {
  MountainCarEnv env;
  EXPECT_EQ(env.action_space().ToString(), "Discrete(3)");
  EXPECT_EQ(env.observation_space().box().low(), (std::vector<float>{-1.2f, -0.07f}));
  EXPECT_EQ(env.observation_space().box().high(), (std::vector<float>{0.6f, 0.07f}));
  auto spec = GetEnvSpec("MountainCar-v0");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->max_episode_steps, 200);
  EXPECT_EQ(spec->reward_threshold, -110.0);
}

// By hand from (-0.5, 0), a = 0.5:
//   velocity = 0.5 * 0.0015 - 0.0025 * 0.0707372017 = 0.000573157
//   position = -0.499426843, stored as float32 (-0.49942684173583984)
//   reward   = -0.1 * 0.25 = -0.025
TEST(MountainCarContinuousTest, HandComputedFirstStep) {
  MountainCarContinuousEnv env;
  env.Reset(0);
  env.set_state({-0.5, 0.0});
  StepResult r = env.Step(Action::OfValues({0.5f}));
  EXPECT_NEAR(env.state()[1], 0.000573157, 1e-9);
  EXPECT_EQ(env.state()[0], -0.49942684173583984);
  EXPECT_NEAR(r.reward, -0.025, 1e-15);
  EXPECT_FALSE(r.terminated);
}

// The reward penalises the raw action, the dynamics use the clipped one.
TEST(MountainCarContinuousTest, RewardUsesUnclippedAction) {
  MountainCarContinuousEnv env;
  env.Reset(0);
  env.set_state({-0.5, 0.0});
  StepResult r = env.Step(Action::OfValues({2.0f}));
  EXPECT_NEAR(r.reward, -0.4, 1e-15);
  EXPECT_NEAR(env.state()[1], 0.0015 - 0.0025 * std::cos(-1.5), 1e-9);
}

// Reaching the goal pays 100 minus the action cost: from (0.44, 0.02) with a = 1.
TEST(MountainCarContinuousTest, GoalReward) {
  MountainCarContinuousEnv env;
  env.Reset(0);
  env.set_state({0.44, 0.02});
  StepResult r = env.Step(Action::OfValues({1.0f}));
  EXPECT_TRUE(r.terminated);
  EXPECT_NEAR(r.reward, 99.9, 1e-12);
}

void RunContinuous(RefContinuous ref, uint64_t action_seed, bool pump) {
  SCOPED_TRACE(::testing::Message() << "start [" << ref.position << ", " << ref.velocity << "]");
  TimeLimit env(std::make_unique<MountainCarContinuousEnv>(), 999);  // MountainCarContinuous-v0's
  env.Reset(4);
  auto* car = dynamic_cast<MountainCarContinuousEnv*>(env.unwrapped());
  ASSERT_NE(car, nullptr);
  car->set_state({ref.position, ref.velocity});
  Lcg lcg(action_seed);
  for (int t = 1; t <= 999; ++t) {
    const float a =
        pump ? (ref.velocity >= 0 ? 1.0f : -1.0f) : static_cast<float>(lcg.Real(-1.5, 1.5));
    StepResult got = env.Step(Action::OfValues({a}));
    auto [reward, terminated] = ref.Step(a);
    ExpectStateNear(car->state()[0], ref.position, t, "position");
    ExpectStateNear(car->state()[1], ref.velocity, t, "velocity");
    ExpectObsNear(got.obs, ref.Obs(), t);
    ExpectStateNear(got.reward, reward, t, "reward");
    ASSERT_EQ(got.terminated, terminated) << "step " << t;
    ASSERT_EQ(got.truncated, t == 999) << "step " << t;
    if (terminated) return;
  }
  EXPECT_FALSE(pump) << "the pumping policy should reach the goal";
}

TEST(MountainCarContinuousTest, TrajectoriesMatchGymnasium) {
  RunContinuous({-0.5, 0.0}, 1, false);
  RunContinuous({-0.59, 0.0}, 2, false);
  RunContinuous({-1.18, -0.07}, 3, false);
  RunContinuous({-0.5, 0.0}, 0, /*pump=*/true);
}

TEST(MountainCarContinuousTest, ResetStateSpacesAndSpec) {
  MountainCarContinuousEnv env;
  for (uint64_t seed = 0; seed < 200; ++seed) {
    Observation obs = env.Reset(seed);
    EXPECT_GE(env.state()[0], -0.6);
    EXPECT_LT(env.state()[0], -0.4);
    EXPECT_EQ(obs[1], 0.0f);
  }
  EXPECT_EQ(env.action_space().box().low()[0], -1.0f);
  EXPECT_EQ(env.action_space().box().high()[0], 1.0f);
  auto spec = GetEnvSpec("MountainCarContinuous-v0");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->max_episode_steps, 999);
  EXPECT_EQ(spec->reward_threshold, 90.0);
}

}  // namespace
}  // namespace ray::rllib
