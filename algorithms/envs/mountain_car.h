#pragma once
// MountainCar-v0: Gymnasium's mountain car with discrete actions (Moore 1990,
// "Efficient memory-based learning for robot control"; Sutton's MountainCar1.cp).
// Source: gymnasium/envs/classic_control/mountain_car.py.
//
// State [position, velocity] in float64; observation cast to float32. Action
// Discrete(3): 0 accelerate left, 1 none, 2 right.
//   velocity += (action - 1) * 0.001 + cos(3 position) * (-0.0025), clipped to ±0.07
//   position += velocity, clipped to [-1.2, 0.6]; at the left wall a negative
//   velocity becomes 0.
// Terminates when position >= 0.5 and velocity >= goal_velocity. Reward -1 every
// step. Registered with 200 steps, threshold -110. Reset: position ~ U(-0.6, -0.4),
// velocity 0.
//
// env_config keys: "goal_velocity" (number, default 0).

#include <array>
#include <optional>

#include "ray/rllib/env.h"

namespace ray::rllib {

class MountainCarEnv : public Env {
 public:
  using State = std::array<double, 2>;  // position, velocity

  static constexpr double kMinPosition = -1.2;
  static constexpr double kMaxPosition = 0.6;
  static constexpr double kMaxSpeed = 0.07;
  static constexpr double kGoalPosition = 0.5;
  static constexpr double kForce = 0.001;
  static constexpr double kGravity = 0.0025;

  explicit MountainCarEnv(double goal_velocity = 0.0);

  Observation Reset(std::optional<uint64_t> seed) override;
  StepResult Step(const Action& action) override;
  const Space& observation_space() const override { return observation_space_; }
  const Space& action_space() const override { return action_space_; }

  const State& state() const { return state_; }
  void set_state(const State& state) { state_ = state; }

 private:
  Observation Obs() const;

  double goal_velocity_;
  Space observation_space_;
  Space action_space_;
  State state_{};
};

}  // namespace ray::rllib
