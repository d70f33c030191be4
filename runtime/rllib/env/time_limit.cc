#include "runtime/rllib/env/time_limit.h"

namespace ray::rllib {

TimeLimit::TimeLimit(std::unique_ptr<Env> env, int max_episode_steps)
    : env_(std::move(env)), max_episode_steps_(max_episode_steps) {}

Observation TimeLimit::Reset(std::optional<uint64_t> seed) {
  elapsed_steps_ = 0;
  return env_->Reset(seed);
}

StepResult TimeLimit::Step(const Action& action) {
  StepResult result = env_->Step(action);
  ++elapsed_steps_;
  if (elapsed_steps_ >= max_episode_steps_) result.truncated = true;
  return result;
}

}  // namespace ray::rllib
