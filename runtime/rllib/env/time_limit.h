#pragma once
// Gymnasium's TimeLimit wrapper: truncates episodes at max_episode_steps.
//
// Each Step counts; once the count since the last Reset reaches max_episode_steps,
// the step's `truncated` is true (OR-ed with the inner env's). `terminated` passes
// through unchanged, so both can be true on the same step. Stepping past the limit
// keeps returning truncated = true. Reset zeroes the count.

#include <memory>

#include "ray/rllib/env.h"

namespace ray::rllib {

class TimeLimit : public Env {
 public:
  // max_episode_steps >= 1. Owns `env`.
  TimeLimit(std::unique_ptr<Env> env, int max_episode_steps);

  Observation Reset(std::optional<uint64_t> seed) override;
  StepResult Step(const Action& action) override;
  const Space& observation_space() const override { return env_->observation_space(); }
  const Space& action_space() const override { return env_->action_space(); }
  Env* unwrapped() override { return env_->unwrapped(); }

  int max_episode_steps() const { return max_episode_steps_; }
  int elapsed_steps() const { return elapsed_steps_; }

 private:
  std::unique_ptr<Env> env_;
  int max_episode_steps_;
  int elapsed_steps_ = 0;
};

}  // namespace ray::rllib
