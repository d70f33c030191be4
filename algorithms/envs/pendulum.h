#pragma once
// Pendulum-v1: Gymnasium's inverted pendulum swing-up.
// Source: gymnasium/envs/classic_control/pendulum.py.
//
// State [theta, theta_dot] in float64 (theta is not wrapped); observation
// [cos theta, sin theta, theta_dot] cast to float32. Action Box([-2], [2]): the torque
// u, clipped to [-2, 2]. Semi-implicit Euler with dt = 0.05:
//   theta_dot' = clip(theta_dot + (3g/(2l) sin theta + 3/(m l^2) u) dt, -8, 8)
//   theta'     = theta + theta_dot' dt
// Reward -(angle_normalize(theta)^2 + 0.1 theta_dot^2 + 0.001 u^2), on the state
// before the step. Never terminates; registered with 200 steps and no threshold.
// Reset: theta ~ U(-pi, pi), theta_dot ~ U(-1, 1).
//
// env_config keys: "g" (number, default 10.0).

#include <array>
#include <optional>

#include "ray/rllib/env.h"

namespace ray::rllib {

class PendulumEnv : public Env {
 public:
  using State = std::array<double, 2>;  // theta, theta_dot

  static constexpr double kMaxSpeed = 8;
  static constexpr double kMaxTorque = 2.0;
  static constexpr double kDt = 0.05;
  static constexpr double kMass = 1.0;
  static constexpr double kLength = 1.0;

  explicit PendulumEnv(double g = 10.0);

  Observation Reset(std::optional<uint64_t> seed) override;
  StepResult Step(const Action& action) override;
  const Space& observation_space() const override { return observation_space_; }
  const Space& action_space() const override { return action_space_; }

  // The physical state, like Gymnasium's env.unwrapped.state.
  const State& state() const { return state_; }
  void set_state(const State& state) { state_ = state; }
  double g() const { return g_; }

  // ((x + pi) mod 2 pi) - pi with numpy's floored modulo: the result is in [-pi, pi).
  static double AngleNormalize(double x);

 private:
  Observation Obs() const;

  double g_;
  Space observation_space_;
  Space action_space_;
  State state_{};
};

}  // namespace ray::rllib
