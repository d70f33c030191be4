#pragma once
// The single-agent environment interface, shaped like Gymnasium's `Env` (envpool
// style: an env is Reset/Step plus a spec). RLlib's gym-style env (catalog RL-031)
// maps onto it: reset() -> Reset, step() -> Step, done == terminated || truncated.
// Part of the env SDK (header-only): the runtime's builtin envs and a plugin's envs
// implement the same class; a plugin's envs reach the runtime only through the C
// boundary of <ray/rllib/env_abi.h> (see <ray/rllib/env_plugin.h>).
//
// Contract (Gymnasium's):
//  * Reset(seed) starts an episode and returns its first observation. With a seed,
//    the env's RNG is reseeded, so the same seed gives the same episode. Without a
//    seed, the RNG stream continues (or, on the very first Reset, is seeded from
//    std::random_device).
//  * Step(action) advances one step. `terminated`: the MDP reached a terminal state
//    (no bootstrapping). `truncated`: the episode was cut short from outside the MDP,
//    e.g. by TimeLimit (bootstrap from obs). Call Reset once either is true; stepping
//    on is allowed but its results are env-specific (CartPole: reward 0).
//  * Reset must be called before the first Step.
//  * An env that cannot go on throws (std::exception). A plugin's env is caught at
//    the plugin boundary; the runtime's wrapper rethrows it as std::runtime_error
//    naming the env.
//
// The RNG is not numpy's PCG64 (see rng.h): for the same seed, the initial state
// differs from Gymnasium's. The dynamics are Gymnasium's exactly: from the same state,
// the same actions give the same trajectory.
//
// Envs are not thread-safe; use one per thread (VectorEnv steps several in one thread).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "ray/rllib/action.h"
#include "ray/rllib/rng.h"
#include "ray/rllib/spaces.h"

namespace ray::rllib {

// What Gymnasium's registration records about an env id.
struct EnvSpec {
  std::string id;                          // e.g. "CartPole-v1"
  std::optional<int> max_episode_steps;    // TimeLimit applied by MakeEnv; none: no limit
  std::optional<double> reward_threshold;  // return at which the task counts as solved
};

struct StepResult {
  Observation obs;
  double reward = 0.0;
  bool terminated = false;
  bool truncated = false;
};

class Env {
 public:
  virtual ~Env() = default;

  virtual Observation Reset(std::optional<uint64_t> seed) = 0;
  virtual StepResult Step(const Action& action) = 0;
  virtual const Space& observation_space() const = 0;
  virtual const Space& action_space() const = 0;

  // The innermost env under any wrappers (Gymnasium's env.unwrapped), e.g. to read or
  // set a classic-control env's physical state. Owned by this env.
  virtual Env* unwrapped() { return this; }

  // Set by MakeEnv from the registration; empty id when built directly.
  const EnvSpec& spec() const { return spec_; }
  void set_spec(EnvSpec spec) { spec_ = std::move(spec); }

 protected:
  // For implementations of Reset: reseeds rng() with `seed`, or with an entropy seed
  // if this is the first reset and no seed is given; otherwise leaves it alone.
  void SeedRng(std::optional<uint64_t> seed) {
    if (seed.has_value()) {
      rng_.Seed(*seed);
    } else if (!rng_seeded_) {
      rng_.Seed(Rng::EntropySeed());
    }
    rng_seeded_ = true;
  }
  Rng& rng() { return rng_; }

 private:
  Rng rng_;
  bool rng_seeded_ = false;
  EnvSpec spec_;
};

}  // namespace ray::rllib
