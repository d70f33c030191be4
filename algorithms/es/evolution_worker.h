#pragma once
// What one ES/ARS rollout actor does (RLlib's agents/es Worker.do_rollouts), without
// the actor: with the trainer's weights theta, it runs antithetic pairs of episodes,
// theta + sigma * eps and theta - sigma * eps with eps the shared noise table's slice
// at a random offset, and reports each pair's offset, returns and lengths. Before each
// pair, with probability eval_prob, it runs an unperturbed evaluation episode instead
// (its return is what the trainer reports). Observations pass through RLlib's default
// preprocessor, then the worker's MeanStdFilter, updated on every step (RLlib: update=True), whose new statistics the
// trainer collects and merges once per iteration.
//
// Unlike RLlib (a pair per call, calls repeated for at least 0.2 s), a call runs a
// given number of pairs, so a seeded run does not depend on timing.
//
// Owns its env, policy and filter; the noise table's bytes belong to the caller and
// must outlive the worker. Not thread-safe.

#include <memory>
#include <optional>
#include <vector>

#include <msgpack.hpp>

#include "algorithms/es/es_gradient.h"
#include "algorithms/es/evolution_config.h"
#include "algorithms/es/flat_policy.h"
#include "algorithms/es/noise_table.h"
#include "ray/rllib/env.h"
#include "runtime/rllib/env/preprocessor.h"
#include "runtime/rllib/observation_filter.h"

namespace ray::rllib {

// One DoRollouts call's episodes.
struct RolloutBatch {
  std::vector<PerturbedPair> pairs;
  std::vector<double> eval_returns;
  std::vector<int64_t> eval_lengths;
  MSGPACK_DEFINE_ARRAY(pairs, eval_returns, eval_lengths);
};

// Builds the env `options.env` (loading env_plugin first) for worker `index` and the
// policy for its spaces. Errors name the env, the space or the key.
Result<std::unique_ptr<Env>> MakeEvolutionEnv(const EvolutionWorkerOptions& options, int index);

class EvolutionWorker {
 public:
  static Result<std::unique_ptr<EvolutionWorker>> Create(const EvolutionWorkerOptions& options, NoiseTable noise,
                                                         int index);

  // num_pairs antithetic pairs (and the evaluation episodes drawn among them) with
  // weights theta. InvalidArgument if theta does not fit the policy.
  Result<RolloutBatch> DoRollouts(const std::vector<float>& theta, int64_t num_pairs);

  // The filter's state, its buffer cleared when flush (empty with NoFilter).
  FilterState GetFilters(bool flush);
  Status SyncFilters(const FilterState& master);

 private:
  EvolutionWorker(const EvolutionWorkerOptions& options, NoiseTable noise, std::unique_ptr<Env> env,
                  FlatPolicy policy, uint64_t seed);
  // One episode with the policy's current weights: its return and length.
  std::pair<double, int64_t> Episode(bool add_noise);

  EvolutionWorkerOptions options_;
  NoiseTable noise_;
  std::unique_ptr<Env> env_;
  Preprocessor preprocessor_;
  FlatPolicy policy_;
  std::optional<MeanStdFilter> filter_;
  Rng rng_;
  std::optional<uint64_t> next_reset_seed_;
};

}  // namespace ray::rllib
