#include "algorithms/envs/pendulum.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <ray/rllib/env_plugin.h>

namespace ray::rllib {
namespace {

std::unique_ptr<Env> MakePendulum(const EnvContext& config) {
  return std::make_unique<PendulumEnv>(config.GetDouble("g", 10.0));
}

}  // namespace

PendulumEnv::PendulumEnv(double g)
    : g_(g),
      observation_space_(Box({-1.0f, -1.0f, -static_cast<float>(kMaxSpeed)},
                             {1.0f, 1.0f, static_cast<float>(kMaxSpeed)})),
      action_space_(
          Box::Uniform(-static_cast<float>(kMaxTorque), static_cast<float>(kMaxTorque), {1})) {}

double PendulumEnv::AngleNormalize(double x) {
  constexpr double kTwoPi = 2 * std::numbers::pi;
  // numpy's float remainder: fmod, then shifted into the divisor's sign.
  double mod = std::fmod(x + std::numbers::pi, kTwoPi);
  if (mod != 0.0) {
    if (mod < 0.0) mod += kTwoPi;
  } else {
    mod = 0.0;
  }
  return mod - std::numbers::pi;
}

Observation PendulumEnv::Obs() const {
  return {static_cast<float>(std::cos(state_[0])), static_cast<float>(std::sin(state_[0])),
          static_cast<float>(state_[1])};
}

Observation PendulumEnv::Reset(std::optional<uint64_t> seed) {
  SeedRng(seed);
  // Gymnasium draws both with one uniform(low=-high, high=high) call, theta first.
  state_[0] = rng().Uniform(-std::numbers::pi, std::numbers::pi);
  state_[1] = rng().Uniform(-1.0, 1.0);
  return Obs();
}

StepResult PendulumEnv::Step(const Action& action) {
  const auto [th, thdot] = state_;
  // The clip happens on the float32 action, as np.clip on a float32 array does.
  const float u_f32 = std::clamp(action.values.empty() ? 0.0f : action.values[0],
                                 -static_cast<float>(kMaxTorque), static_cast<float>(kMaxTorque));
  const double u = u_f32;

  const double th_norm = AngleNormalize(th);
  const double costs = th_norm * th_norm + 0.1 * (thdot * thdot) + 0.001 * (u * u);

  double newthdot =
      thdot +
      (3 * g_ / (2 * kLength) * std::sin(th) + 3.0 / (kMass * (kLength * kLength)) * u) * kDt;
  newthdot = std::clamp(newthdot, -kMaxSpeed, kMaxSpeed);
  const double newth = th + newthdot * kDt;
  state_ = {newth, newthdot};
  return {Obs(), -costs, false, false};
}

RAY_ENV("Pendulum-v1", MakePendulum, 200, std::nullopt);

}  // namespace ray::rllib
