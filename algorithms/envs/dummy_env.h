#pragma once
// A template to copy for your own env (envpool's dummy env, in our terms). The builtin
// envs are written this way, in an env plugin of their own (algorithms/envs/, the
// factory and RAY_ENV of <ray/rllib/env_plugin.h>); a user's env is the same in a
// plugin library of the user's (see plugins/examples/reach_target_env.cc). It is RLlib's
// "SimpleCorridor" custom-env example: the agent starts at position 0 of a corridor
// and must walk right to position `corridor_length`.
//
//   observation  Box([0], [corridor_length]): the current position (float32)
//   action       Discrete(2): 0 = step left (not below 0), 1 = step right
//   reward       +1.0 on reaching the end, -0.1 for every other step
//   terminated   when position >= corridor_length
//   registered   "Dummy-v0", max_episode_steps 100, no reward threshold
//   env_config   "corridor_length" (integer >= 1, default 5)
//
// To write your own env:
//  1. Copy this file pair, rename the class, and describe the env in this comment:
//     spaces, dynamics, reward, termination, reset distribution, env_config keys,
//     and the source you are reproducing.
//  2. Build the spaces once in the constructor; return them by reference.
//  3. Reset(seed): call SeedRng(seed) first, draw the initial state from rng() only
//     (never from a global RNG), return the first observation.
//  4. Step(action): read action.index (Discrete) or action.values (Box); return
//     obs, reward, terminated. Leave truncated false: MakeEnv's TimeLimit handles it.
//  5. In the .cc, write a factory taking an EnvContext that validates env_config
//     (std::invalid_argument on a bad value) and register it with RAY_ENV(id,
//     factory, max_episode_steps, reward_threshold). Add a test that steps it
//     through the conformance suite (tests/rllib_env/env_conformance_test.cc picks
//     up every registered env).

#include <optional>

#include "ray/rllib/env.h"

namespace ray::rllib {

class DummyEnv : public Env {
 public:
  explicit DummyEnv(int corridor_length = 5);

  Observation Reset(std::optional<uint64_t> seed) override;
  StepResult Step(const Action& action) override;
  const Space& observation_space() const override { return observation_space_; }
  const Space& action_space() const override { return action_space_; }

  int position() const { return position_; }

 private:
  int corridor_length_;
  Space observation_space_;
  Space action_space_;
  int position_ = 0;
};

}  // namespace ray::rllib
