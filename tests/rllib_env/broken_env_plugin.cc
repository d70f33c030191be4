// An env plugin whose envs fail in the ways a user's can: a factory that refuses
// its env_config, and an env whose Step throws after a few steps. Also one env that
// reports its context, to show env_config and the copy's indices cross the boundary.

#include <ray/rllib/env_plugin.h>

#include <stdexcept>

namespace {

using namespace ray::rllib;

// Observation: [worker_index, vector_index, env_config["x"]]. Step throws once
// env_config["fail_after"] steps (default 3) have been taken since Reset.
class Fragile : public Env {
 public:
  explicit Fragile(const EnvContext& c)
      : obs_{static_cast<float>(c.worker_index()), static_cast<float>(c.vector_index()),
             static_cast<float>(c.GetDouble("x", 0))},
        fail_after_(c.GetInt("fail_after", 3)) {}

  Observation Reset(std::optional<uint64_t>) override {
    steps_ = 0;
    return obs_;
  }
  StepResult Step(const Action& action) override {
    if (++steps_ > fail_after_) throw std::runtime_error("the motor caught fire");
    return {obs_, static_cast<double>(action.index), false, false};
  }
  const Space& observation_space() const override { return observation_space_; }
  const Space& action_space() const override { return action_space_; }

 private:
  Observation obs_;
  int64_t fail_after_;
  int64_t steps_ = 0;
  Space observation_space_ = Box::Uniform(-1000.0f, 1000.0f, {3});
  Space action_space_ = Discrete(3);
};

std::unique_ptr<Env> MakeFragile(const EnvContext& c) { return std::make_unique<Fragile>(c); }

std::unique_ptr<Env> MakeUnmakeable(const EnvContext&) {
  throw std::invalid_argument("Unmakeable-v0 needs env_config[\"map\"]");
}

}  // namespace

RAY_ENV("Fragile-v0", MakeFragile, 10, 5.0);
RAY_ENV("Unmakeable-v0", MakeUnmakeable, std::nullopt, std::nullopt);
