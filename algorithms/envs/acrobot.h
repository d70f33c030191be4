#pragma once
// Acrobot-v1: Gymnasium's two-link acrobot with Sutton & Barto's "book" dynamics
// (Sutton 1996, "Generalization in reinforcement learning: successful examples using
// sparse coarse coding"; Sutton & Barto, "Reinforcement Learning: An Introduction").
// Source: gymnasium/envs/classic_control/acrobot.py (from RLPy).
//
// State [theta1, theta2, dtheta1, dtheta2] in float64; observation
// [cos th1, sin th1, cos th2, sin th2, dth1, dth2] cast to float32. Action Discrete(3):
// torque -1, 0, +1 on the joint between the links. One classical RK4 step over
// dt = 0.2 of the state augmented with the (constant) torque, then theta1 and theta2
// are wrapped into [-pi, pi] and dtheta1, dtheta2 bounded to ±4pi, ±9pi.
// Terminates when -cos(th1) - cos(th2 + th1) > 1. Reward -1 per step, 0 on the
// terminating step. Registered with 500 steps, threshold -100.
// Reset: all four state variables ~ U(-0.1, 0.1), rounded to float32 (Gymnasium's
// `.astype(np.float32)`); from the first step on the state is float64 again.
//
// env_config keys: "book_or_nips" ("book" (default) or "nips": the NeurIPS paper's
// equation without the dtheta1^2 term), "torque_noise_max" (number, default 0: no
// noise; otherwise U(-max, max) from the env's RNG is added to the torque).

#include <array>
#include <numbers>
#include <optional>

#include "ray/rllib/env.h"

namespace ray::rllib {

struct AcrobotOptions {
  bool nips_dynamics = false;     // Gymnasium's book_or_nips == "nips"
  double torque_noise_max = 0.0;  // Gymnasium's torque_noise_max
};

class AcrobotEnv : public Env {
 public:
  using State = std::array<double, 4>;  // theta1, theta2, dtheta1, dtheta2

  static constexpr double kDt = 0.2;
  static constexpr double kLinkLength1 = 1.0;
  static constexpr double kLinkLength2 = 1.0;
  static constexpr double kLinkMass1 = 1.0;
  static constexpr double kLinkMass2 = 1.0;
  static constexpr double kLinkComPos1 = 0.5;
  static constexpr double kLinkComPos2 = 0.5;
  static constexpr double kLinkMoi = 1.0;
  static constexpr double kMaxVel1 = 4 * std::numbers::pi;
  static constexpr double kMaxVel2 = 9 * std::numbers::pi;
  static constexpr double kGravity = 9.8;
  static constexpr std::array<double, 3> kAvailTorque = {-1.0, 0.0, 1.0};

  explicit AcrobotEnv(AcrobotOptions options = {});

  Observation Reset(std::optional<uint64_t> seed) override;
  StepResult Step(const Action& action) override;
  const Space& observation_space() const override { return observation_space_; }
  const Space& action_space() const override { return action_space_; }

  const State& state() const { return state_; }
  void set_state(const State& state) { state_ = state; }

 private:
  using Augmented = std::array<double, 5>;  // State plus torque
  Augmented Dsdt(const Augmented& s) const;
  Observation Obs() const;

  AcrobotOptions options_;
  Space observation_space_;
  Space action_space_;
  State state_{};
};

}  // namespace ray::rllib
