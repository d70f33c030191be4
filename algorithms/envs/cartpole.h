#pragma once
// CartPole-v0 / CartPole-v1: Gymnasium's cart-pole, from Sutton's pole.c (Barto,
// Sutton & Anderson 1983, "Neuronlike adaptive elements that can solve difficult
// learning control problems"). Source: gymnasium/envs/classic_control/cartpole.py.
//
// State [x, x_dot, theta, theta_dot] in float64; the observation is the state cast to
// float32. Action Discrete(2): 0 pushes left (-10 N), 1 pushes right (+10 N). Explicit
// Euler with tau = 0.02 s by default ("semi-implicit" Euler on request). Terminates
// when |x| > 2.4 or |theta| > 12 degrees. Reward 1 per step including the terminating
// one; after that, 0 per step with a warning (steps_beyond_terminated). With
// sutton_barto_reward: 0 per step, -1 on the terminating step and after.
// Reset draws all four state variables from U(-0.05, 0.05).
// Registered: CartPole-v0 (200 steps, threshold 195), CartPole-v1 (500, 475).
//
// env_config keys: "sutton_barto_reward" (bool, default false),
// "kinematics_integrator" ("euler" (default) or "semi-implicit").

#include <array>
#include <cstdint>
#include <numbers>
#include <optional>

#include "ray/rllib/env.h"

namespace ray::rllib {

struct CartPoleOptions {
  bool sutton_barto_reward = false;  // Gymnasium ctor argument
  bool semi_implicit_euler = false;  // Gymnasium's kinematics_integrator != "euler"
  // Not Gymnasium's: CPU time each step burns on top of the dynamics (busy, not
  // sleeping), to stand in for a costlier simulator in throughput benchmarks.
  int64_t step_cost_us = 0;
};

class CartPoleEnv : public Env {
 public:
  using State = std::array<double, 4>;  // x, x_dot, theta, theta_dot

  static constexpr double kGravity = 9.8;
  static constexpr double kMassCart = 1.0;
  static constexpr double kMassPole = 0.1;
  static constexpr double kTotalMass = kMassPole + kMassCart;
  static constexpr double kLength = 0.5;  // half the pole's length
  static constexpr double kPoleMassLength = kMassPole * kLength;
  static constexpr double kForceMag = 10.0;
  static constexpr double kTau = 0.02;
  static constexpr double kThetaThresholdRadians = 12 * 2 * std::numbers::pi / 360;
  static constexpr double kXThreshold = 2.4;

  explicit CartPoleEnv(CartPoleOptions options = {});

  Observation Reset(std::optional<uint64_t> seed) override;
  StepResult Step(const Action& action) override;
  const Space& observation_space() const override { return observation_space_; }
  const Space& action_space() const override { return action_space_; }

  // The physical state, like Gymnasium's env.unwrapped.state. set_state does not touch
  // the episode bookkeeping (steps_beyond_terminated); Reset first for a fresh episode.
  const State& state() const { return state_; }
  void set_state(const State& state) { state_ = state; }
  // None until the episode terminates, then the number of steps taken since.
  std::optional<int> steps_beyond_terminated() const { return steps_beyond_terminated_; }

 private:
  Observation Obs() const;

  CartPoleOptions options_;
  Space observation_space_;
  Space action_space_;
  State state_{};
  std::optional<int> steps_beyond_terminated_;
};

}  // namespace ray::rllib
