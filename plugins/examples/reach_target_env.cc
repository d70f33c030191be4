// A user env in a plugin of its own: a point on a line that must reach the origin.
//
//   rllib train --run PPO --env ReachTarget-v0 \
//       --env-plugin build/plugins/examples/reach_target_env.so
//
//   observation  Box([-2], [2]): the position
//   action       Box([-1], [1]): a velocity; the position moves by 0.1 * action
//   reward       -|position| every step
//   reset        position uniform in [-1, 1]
//   registered   "ReachTarget-v0", 50 steps per episode

#include <algorithm>
#include <cmath>
#include <optional>

#include "runtime/rllib/env/env_plugin.h"

namespace {

using namespace ray::rllib;

class ReachTarget : public Env {
 public:
  Observation Reset(std::optional<uint64_t> seed) override {
    SeedRng(seed);
    position_ = rng().Uniform(-1.0, 1.0);
    return {static_cast<float>(position_)};
  }
  StepResult Step(const Action& action) override {
    double v = std::clamp(static_cast<double>(action.values.at(0)), -1.0, 1.0);
    position_ = std::clamp(position_ + 0.1 * v, -2.0, 2.0);
    return {{static_cast<float>(position_)}, -std::abs(position_), false, false};
  }
  const Space& observation_space() const override { return observation_space_; }
  const Space& action_space() const override { return action_space_; }

 private:
  Space observation_space_ = Box({-2.0f}, {2.0f});
  Space action_space_ = Box({-1.0f}, {1.0f});
  double position_ = 0;
};

ray::Result<std::unique_ptr<Env>> MakeReachTarget(const EnvConfig&) {
  return std::unique_ptr<Env>(std::make_unique<ReachTarget>());
}

}  // namespace

RAY_ENV("ReachTarget-v0", MakeReachTarget, 50, std::nullopt);
RAY_ENV_PLUGIN("ReachTarget-v0");
