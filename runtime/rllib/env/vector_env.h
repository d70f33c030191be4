#pragma once
// N copies of one env stepped together in the calling thread, with auto-reset
// (RLlib's VectorEnv, catalog RL-035: vector_reset / reset_at / vector_step).
//
// Auto-reset convention (RLlib's, Gymnasium's "same-step" mode): when slot i's episode
// ends on a step (terminated or truncated), the slot is reset at once. That step's
// obs for slot i is the FIRST observation of the next episode; the last observation
// of the finished episode is reported in final_obs[i]; reward and flags are those of
// the finished episode's last step. The next VectorStep acts in the new episode.
//
// Seeding: VectorReset(seed) resets slot i with seed + i (no seed: every slot seeds
// itself from entropy). Auto-resets pass no seed, so each slot's RNG stream continues
// and a seeded run is reproducible end to end.
//
// Observations are flattened into one row-major [num_envs, obs_size] float buffer,
// ready to become a batch tensor, after RLlib's default preprocessor for the
// observation space (preprocessor.h: a Box as it is, a Discrete(n) one-hot, a Tuple or
// a Dict flattened; an observation that does not fit its space is a
// std::runtime_error naming the env and the space). Every observation this class returns is
// preprocessed. Not thread-safe.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ray/rllib/env.h"
#include "runtime/base/status.h"
#include "runtime/rllib/env/env_config.h"
#include "runtime/rllib/env/preprocessor.h"

namespace ray::rllib {

struct VectorStepResult {
  std::vector<float> obs;  // [num_envs * obs_size]; see the auto-reset convention
  std::vector<double> rewards;
  std::vector<uint8_t> terminated;
  std::vector<uint8_t> truncated;
  // final_obs[i]: slot i's last observation if its episode ended this step, else empty.
  std::vector<Observation> final_obs;

  bool done(int i) const { return terminated[i] || truncated[i]; }
};

class VectorEnv {
 public:
  // num_envs copies of the registered env `name` (each through MakeEnv, so with its
  // TimeLimit); copy i sees `config` with vector_index i. InvalidArgument if
  // num_envs < 1 or the action space is not a Box or a Discrete; MakeEnv's errors
  // otherwise.
  static Result<std::unique_ptr<VectorEnv>> Make(const std::string& name, int num_envs,
                                                 const EnvConfig& config = {});
  // Takes ownership of already-built envs. Preconditions: at least one, all with the
  // same spaces, a Box or a Discrete action space.
  explicit VectorEnv(std::vector<std::unique_ptr<Env>> envs);

  int num_envs() const { return static_cast<int>(envs_.size()); }
  int64_t obs_size() const { return preprocessor_.size(); }
  const Space& observation_space() const { return envs_[0]->observation_space(); }
  const Space& action_space() const { return envs_[0]->action_space(); }
  Env& env(int i) { return *envs_[i]; }

  // Resets every slot; returns the [num_envs * obs_size] observations.
  std::vector<float> VectorReset(std::optional<uint64_t> seed);
  // Resets one slot (its observation is also returned by the next VectorStep's obs).
  Observation ResetAt(int index, std::optional<uint64_t> seed);
  // Steps every slot with actions[i] (actions.size() == num_envs()) and auto-resets
  // finished slots. Fills `out`, reusing its storage across calls.
  void VectorStep(const std::vector<Action>& actions, VectorStepResult* out);

 private:
  // The observation as the model sees it.
  Observation Preprocess(Observation raw) const;

  std::vector<std::unique_ptr<Env>> envs_;
  Preprocessor preprocessor_;
};

}  // namespace ray::rllib
