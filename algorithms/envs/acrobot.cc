#include "algorithms/envs/acrobot.h"

#include <algorithm>
#include <cmath>

#include <ray/rllib/env_plugin.h>

#include <stdexcept>
#include <string>

namespace ray::rllib {
namespace {

constexpr double kPi = std::numbers::pi;

std::unique_ptr<Env> MakeAcrobot(const EnvContext& config) {
  AcrobotOptions options;
  const std::string dynamics = config.GetString("book_or_nips", "book");
  if (dynamics != "book" && dynamics != "nips") {
    throw std::invalid_argument("env_config[\"book_or_nips\"] must be \"book\" or \"nips\", got \"" +
                                dynamics + "\"");
  }
  options.nips_dynamics = dynamics == "nips";
  options.torque_noise_max = config.GetDouble("torque_noise_max", 0.0);
  return std::make_unique<AcrobotEnv>(options);
}

// Gymnasium's wrap(): shifts x by whole periods into [m, M].
double Wrap(double x, double m, double M) {
  const double diff = M - m;
  while (x > M) x = x - diff;
  while (x < m) x = x + diff;
  return x;
}

double Bound(double x, double m, double M) { return std::min(std::max(x, m), M); }

}  // namespace

AcrobotEnv::AcrobotEnv(AcrobotOptions options)
    : options_(options),
      observation_space_(Box(
          {-1.0f, -1.0f, -1.0f, -1.0f, -static_cast<float>(kMaxVel1),
           -static_cast<float>(kMaxVel2)},
          {1.0f, 1.0f, 1.0f, 1.0f, static_cast<float>(kMaxVel1), static_cast<float>(kMaxVel2)})),
      action_space_(Discrete(3)) {}

Observation AcrobotEnv::Obs() const {
  return {static_cast<float>(std::cos(state_[0])), static_cast<float>(std::sin(state_[0])),
          static_cast<float>(std::cos(state_[1])), static_cast<float>(std::sin(state_[1])),
          static_cast<float>(state_[2]),           static_cast<float>(state_[3])};
}

Observation AcrobotEnv::Reset(std::optional<uint64_t> seed) {
  SeedRng(seed);
  for (double& v : state_) v = static_cast<float>(rng().Uniform(-0.1, 0.1));
  return Obs();
}

// Gymnasium's _dsdt, term for term in the same evaluation order.
AcrobotEnv::Augmented AcrobotEnv::Dsdt(const Augmented& s) const {
  constexpr double m1 = kLinkMass1, m2 = kLinkMass2, l1 = kLinkLength1;
  constexpr double lc1 = kLinkComPos1, lc2 = kLinkComPos2, I1 = kLinkMoi, I2 = kLinkMoi;
  constexpr double g = kGravity;
  const double a = s[4];
  const double theta1 = s[0], theta2 = s[1], dtheta1 = s[2], dtheta2 = s[3];

  const double d1 =
      m1 * (lc1 * lc1) + m2 * ((l1 * l1) + (lc2 * lc2) + 2 * l1 * lc2 * std::cos(theta2)) + I1 + I2;
  const double d2 = m2 * ((lc2 * lc2) + l1 * lc2 * std::cos(theta2)) + I2;
  const double phi2 = m2 * lc2 * g * std::cos(theta1 + theta2 - kPi / 2.0);
  const double phi1 = -m2 * l1 * lc2 * (dtheta2 * dtheta2) * std::sin(theta2) -
                      2 * m2 * l1 * lc2 * dtheta2 * dtheta1 * std::sin(theta2) +
                      (m1 * lc1 + m2 * l1) * g * std::cos(theta1 - kPi / 2) + phi2;
  double ddtheta2;
  if (options_.nips_dynamics) {
    ddtheta2 = (a + d2 / d1 * phi1 - phi2) / (m2 * (lc2 * lc2) + I2 - (d2 * d2) / d1);
  } else {
    ddtheta2 =
        (a + d2 / d1 * phi1 - m2 * l1 * lc2 * (dtheta1 * dtheta1) * std::sin(theta2) - phi2) /
        (m2 * (lc2 * lc2) + I2 - (d2 * d2) / d1);
  }
  const double ddtheta1 = -(d2 * ddtheta2 + phi1) / d1;
  return {dtheta1, dtheta2, ddtheta1, ddtheta2, 0.0};
}

StepResult AcrobotEnv::Step(const Action& action) {
  double torque = kAvailTorque[static_cast<size_t>(std::clamp<int64_t>(action.index, 0, 2))];
  if (options_.torque_noise_max > 0) {
    torque += rng().Uniform(-options_.torque_noise_max, options_.torque_noise_max);
  }

  // rk4(_dsdt, s_augmented, [0, dt]): one classical Runge-Kutta step.
  const Augmented y0 = {state_[0], state_[1], state_[2], state_[3], torque};
  const double dt = kDt - 0.0;
  const double dt2 = dt / 2.0;
  auto axpy = [](const Augmented& y, double h, const Augmented& k) {
    Augmented out;
    for (size_t i = 0; i < out.size(); ++i) out[i] = y[i] + h * k[i];
    return out;
  };
  const Augmented k1 = Dsdt(y0);
  const Augmented k2 = Dsdt(axpy(y0, dt2, k1));
  const Augmented k3 = Dsdt(axpy(y0, dt2, k2));
  const Augmented k4 = Dsdt(axpy(y0, dt, k3));
  State ns;
  for (size_t i = 0; i < ns.size(); ++i) {
    ns[i] = y0[i] + dt / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
  }

  ns[0] = Wrap(ns[0], -kPi, kPi);
  ns[1] = Wrap(ns[1], -kPi, kPi);
  ns[2] = Bound(ns[2], -kMaxVel1, kMaxVel1);
  ns[3] = Bound(ns[3], -kMaxVel2, kMaxVel2);
  state_ = ns;

  const bool terminated = -std::cos(state_[0]) - std::cos(state_[1] + state_[0]) > 1.0;
  return {Obs(), terminated ? 0.0 : -1.0, terminated, false};
}

RAY_ENV("Acrobot-v1", MakeAcrobot, 500, -100.0);

}  // namespace ray::rllib
