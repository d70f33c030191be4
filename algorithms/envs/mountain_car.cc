#include "algorithms/envs/mountain_car.h"

#include <algorithm>
#include <cmath>

#include <ray/rllib/env_plugin.h>

namespace ray::rllib {
namespace {

std::unique_ptr<Env> MakeMountainCar(const EnvContext& config) {
  return std::make_unique<MountainCarEnv>(config.GetDouble("goal_velocity", 0.0));
}

}  // namespace

MountainCarEnv::MountainCarEnv(double goal_velocity)
    : goal_velocity_(goal_velocity),
      observation_space_(Box({static_cast<float>(kMinPosition), static_cast<float>(-kMaxSpeed)},
                             {static_cast<float>(kMaxPosition), static_cast<float>(kMaxSpeed)})),
      action_space_(Discrete(3)) {}

Observation MountainCarEnv::Obs() const {
  return {static_cast<float>(state_[0]), static_cast<float>(state_[1])};
}

Observation MountainCarEnv::Reset(std::optional<uint64_t> seed) {
  SeedRng(seed);
  state_ = {rng().Uniform(-0.6, -0.4), 0.0};
  return Obs();
}

StepResult MountainCarEnv::Step(const Action& action) {
  auto [position, velocity] = state_;
  velocity += static_cast<double>(action.index - 1) * kForce + std::cos(3 * position) * (-kGravity);
  velocity = std::clamp(velocity, -kMaxSpeed, kMaxSpeed);
  position += velocity;
  position = std::clamp(position, kMinPosition, kMaxPosition);
  if (position == kMinPosition && velocity < 0) velocity = 0;

  const bool terminated = position >= kGoalPosition && velocity >= goal_velocity_;
  state_ = {position, velocity};
  return {Obs(), -1.0, terminated, false};
}

RAY_ENV("MountainCar-v0", MakeMountainCar, 200, -110.0);

}  // namespace ray::rllib
