#pragma once
// MountainCarContinuous-v0: Gymnasium's mountain car with a continuous force
// (Moore 1990; the FAReinforcement version adapted by Schaul and de Broissia).
// Source: gymnasium/envs/classic_control/continuous_mountain_car.py.
//
// Action Box([-1], [1]): force = clip(a, -1, 1).
//   velocity += force * 0.0015 - 0.0025 * cos(3 position), clipped to ±0.07
//   position += velocity, clipped to [-1.2, 0.6]; at the left wall a negative
//   velocity becomes 0.
// Terminates when position >= 0.45 and velocity >= goal_velocity. Reward
// (100 if terminated else 0) - 0.1 a^2, with the unclipped action as in Gymnasium.
// Registered with 999 steps, threshold 90. Reset: position ~ U(-0.6, -0.4), velocity 0.
//
// Unlike MountainCar-v0, Gymnasium stores this env's state as float32 after every
// step (np.array(..., dtype=float32)); the reset state stays float64 until the first
// step. We do the same: each step computes in float64 from the stored state, then
// rounds the new state to float32. The observation is that float32 state.
//
// env_config keys: "goal_velocity" (number, default 0).

#include <array>
#include <optional>

#include "ray/rllib/env.h"

namespace ray::rllib {

class MountainCarContinuousEnv : public Env {
 public:
  using State = std::array<double, 2>;  // position, velocity

  static constexpr double kMinAction = -1.0;
  static constexpr double kMaxAction = 1.0;
  static constexpr double kMinPosition = -1.2;
  static constexpr double kMaxPosition = 0.6;
  static constexpr double kMaxSpeed = 0.07;
  static constexpr double kGoalPosition = 0.45;
  static constexpr double kPower = 0.0015;

  explicit MountainCarContinuousEnv(double goal_velocity = 0.0);

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
