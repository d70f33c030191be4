// A user env in a plugin of its own: a point on a line that must reach the origin.
// It needs only the env SDK (<ray/rllib/env_plugin.h>), so it builds the same in this
// tree and out of it (find_package(Ray); ray_add_plugin(reach_target_env ...)).
//
//   rllib train --run PPO --env ReachTarget-v0
//               --env-plugin build/plugins/examples/reach_target_env.so
//
//   observation  Box([-2], [2]): the position
//   action       Box([-1], [1]): a velocity; the position moves by speed * action
//   reward       -|position| every step
//   reset        position uniform in [-1, 1]
//   registered   "ReachTarget-v0", 50 steps per episode
//   env_config   "speed" (number > 0, default 0.1)

#include <ray/rllib/env_plugin.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

namespace {

using namespace ray::rllib;

class ReachTarget : public Env {
 public:
  explicit ReachTarget(double speed) : speed_(speed) {}

  Observation Reset(std::optional<uint64_t> seed) override {
    SeedRng(seed);
    position_ = rng().Uniform(-1.0, 1.0);
    return {static_cast<float>(position_)};
  }
  StepResult Step(const Action& action) override {
    double v = std::clamp(static_cast<double>(action.values.at(0)), -1.0, 1.0);
    position_ = std::clamp(position_ + speed_ * v, -2.0, 2.0);
    return {{static_cast<float>(position_)}, -std::abs(position_), false, false};
  }
  const Space& observation_space() const override { return observation_space_; }
  const Space& action_space() const override { return action_space_; }

 private:
  double speed_;
  Space observation_space_ = Box({-2.0f}, {2.0f});
  Space action_space_ = Box({-1.0f}, {1.0f});
  double position_ = 0;
};

std::unique_ptr<Env> MakeReachTarget(const EnvContext& context) {
  double speed = context.GetDouble("speed", 0.1);
  if (!(speed > 0)) throw std::invalid_argument("env_config[\"speed\"] must be > 0");
  return std::make_unique<ReachTarget>(speed);
}

}  // namespace

RAY_ENV("ReachTarget-v0", MakeReachTarget, 50, std::nullopt);
