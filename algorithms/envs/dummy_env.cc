#include "algorithms/envs/dummy_env.h"

#include <ray/rllib/env_plugin.h>

#include <stdexcept>
#include <string>

namespace ray::rllib {
namespace {

std::unique_ptr<Env> MakeDummy(const EnvContext& config) {
  const int64_t length = config.GetInt("corridor_length", 5);
  if (length < 1 || length > 1000000) {
    throw std::invalid_argument("env_config[\"corridor_length\"] must be in [1, 1e6], got " +
                                std::to_string(length));
  }
  return std::make_unique<DummyEnv>(static_cast<int>(length));
}

}  // namespace

DummyEnv::DummyEnv(int corridor_length)
    : corridor_length_(corridor_length),
      observation_space_(Box({0.0f}, {static_cast<float>(corridor_length)})),
      action_space_(Discrete(2)) {}

Observation DummyEnv::Reset(std::optional<uint64_t> seed) {
  SeedRng(seed);  // deterministic env: seeded only so that every env follows the contract
  position_ = 0;
  return {static_cast<float>(position_)};
}

StepResult DummyEnv::Step(const Action& action) {
  if (action.index == 0 && position_ > 0) --position_;
  if (action.index == 1) ++position_;
  const bool terminated = position_ >= corridor_length_;
  return {{static_cast<float>(position_)}, terminated ? 1.0 : -0.1, terminated, false};
}

RAY_ENV("Dummy-v0", MakeDummy, 100, std::nullopt);

}  // namespace ray::rllib
