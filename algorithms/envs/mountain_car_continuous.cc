#include "algorithms/envs/mountain_car_continuous.h"

#include <algorithm>
#include <cmath>

#include <ray/rllib/env_plugin.h>

namespace ray::rllib {
namespace {

std::unique_ptr<Env> MakeMountainCarContinuous(const EnvContext& config) {
  return std::make_unique<MountainCarContinuousEnv>(config.GetDouble("goal_velocity", 0.0));
}

}  // namespace

MountainCarContinuousEnv::MountainCarContinuousEnv(double goal_velocity)
    : goal_velocity_(goal_velocity),
      observation_space_(Box({static_cast<float>(kMinPosition), static_cast<float>(-kMaxSpeed)},
                             {static_cast<float>(kMaxPosition), static_cast<float>(kMaxSpeed)})),
      action_space_(
          Box::Uniform(static_cast<float>(kMinAction), static_cast<float>(kMaxAction), {1})) {}

Observation MountainCarContinuousEnv::Obs() const {
  return {static_cast<float>(state_[0]), static_cast<float>(state_[1])};
}

Observation MountainCarContinuousEnv::Reset(std::optional<uint64_t> seed) {
  SeedRng(seed);
  state_ = {rng().Uniform(-0.6, -0.4), 0.0};
  return Obs();
}

StepResult MountainCarContinuousEnv::Step(const Action& action) {
  auto [position, velocity] = state_;
  const double a = action.values.empty() ? 0.0 : action.values[0];
  const double force = std::min(std::max(a, kMinAction), kMaxAction);

  velocity += force * kPower - 0.0025 * std::cos(3 * position);
  if (velocity > kMaxSpeed) velocity = kMaxSpeed;
  if (velocity < -kMaxSpeed) velocity = -kMaxSpeed;
  position += velocity;
  if (position > kMaxPosition) position = kMaxPosition;
  if (position < kMinPosition) position = kMinPosition;
  if (position == kMinPosition && velocity < 0) velocity = 0;

  const bool terminated = position >= kGoalPosition && velocity >= goal_velocity_;
  double reward = terminated ? 100.0 : 0.0;
  reward -= std::pow(a, 2) * 0.1;

  state_ = {static_cast<float>(position), static_cast<float>(velocity)};
  return {Obs(), reward, terminated, false};
}

RAY_ENV("MountainCarContinuous-v0", MakeMountainCarContinuous, 999, 90.0);

}  // namespace ray::rllib
