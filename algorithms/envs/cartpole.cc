#include "algorithms/envs/cartpole.h"

#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <limits>

#include <cstdio>
#include <ray/rllib/env_plugin.h>

namespace ray::rllib {
namespace {

Box ObservationBox() {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> high = {static_cast<float>(CartPoleEnv::kXThreshold * 2), inf,
                                   static_cast<float>(CartPoleEnv::kThetaThresholdRadians * 2),
                                   inf};
  return Box({-high[0], -high[1], -high[2], -high[3]}, high);
}

std::unique_ptr<Env> MakeCartPole(const EnvContext& config) {
  CartPoleOptions options;
  options.sutton_barto_reward = config.GetBool("sutton_barto_reward", false);
  options.semi_implicit_euler = config.GetString("kinematics_integrator", "euler") != "euler";
  options.step_cost_us = config.GetInt("step_cost_us", 0);
  if (options.step_cost_us < 0 || options.step_cost_us > 1000000) {
    throw std::invalid_argument("env_config[\"step_cost_us\"] must be in [0, 1e6], got " +
                                std::to_string(options.step_cost_us));
  }
  return std::make_unique<CartPoleEnv>(options);
}

}  // namespace

CartPoleEnv::CartPoleEnv(CartPoleOptions options)
    : options_(options), observation_space_(ObservationBox()), action_space_(Discrete(2)) {}

Observation CartPoleEnv::Obs() const {
  return {static_cast<float>(state_[0]), static_cast<float>(state_[1]),
          static_cast<float>(state_[2]), static_cast<float>(state_[3])};
}

Observation CartPoleEnv::Reset(std::optional<uint64_t> seed) {
  SeedRng(seed);
  for (double& v : state_) v = rng().Uniform(-0.05, 0.05);
  steps_beyond_terminated_.reset();
  return Obs();
}

StepResult CartPoleEnv::Step(const Action& action) {
  if (options_.step_cost_us > 0) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(options_.step_cost_us);
    while (std::chrono::steady_clock::now() < until) {
    }
  }
  auto [x, x_dot, theta, theta_dot] = state_;
  const double force = action.index == 1 ? kForceMag : -kForceMag;
  const double costheta = std::cos(theta);
  const double sintheta = std::sin(theta);

  // Operation order follows cartpole.py so results are bit-identical to float64 numpy.
  const double temp = (force + kPoleMassLength * (theta_dot * theta_dot) * sintheta) / kTotalMass;
  const double thetaacc = (kGravity * sintheta - costheta * temp) /
                          (kLength * (4.0 / 3.0 - kMassPole * (costheta * costheta) / kTotalMass));
  const double xacc = temp - kPoleMassLength * thetaacc * costheta / kTotalMass;

  if (!options_.semi_implicit_euler) {
    x = x + kTau * x_dot;
    x_dot = x_dot + kTau * xacc;
    theta = theta + kTau * theta_dot;
    theta_dot = theta_dot + kTau * thetaacc;
  } else {
    x_dot = x_dot + kTau * xacc;
    x = x + kTau * x_dot;
    theta_dot = theta_dot + kTau * thetaacc;
    theta = theta + kTau * theta_dot;
  }
  state_ = {x, x_dot, theta, theta_dot};

  const bool terminated = x < -kXThreshold || x > kXThreshold || theta < -kThetaThresholdRadians ||
                          theta > kThetaThresholdRadians;
  double reward;
  if (!terminated) {
    reward = options_.sutton_barto_reward ? 0.0 : 1.0;
  } else if (!steps_beyond_terminated_.has_value()) {
    steps_beyond_terminated_ = 0;  // the pole just fell
    reward = options_.sutton_barto_reward ? -1.0 : 1.0;
  } else {
    if (*steps_beyond_terminated_ == 0) {
      std::fprintf(stderr,
                   "CartPole: Step() called after terminated = true; call Reset() once an "
                   "episode terminates. Further steps are undefined behaviour (reward 0).\n");
    }
    ++*steps_beyond_terminated_;
    reward = options_.sutton_barto_reward ? -1.0 : 0.0;
  }
  return {Obs(), reward, terminated, false};
}

RAY_ENV("CartPole-v0", MakeCartPole, 200, 195.0);
RAY_ENV("CartPole-v1", MakeCartPole, 500, 475.0);

}  // namespace ray::rllib
