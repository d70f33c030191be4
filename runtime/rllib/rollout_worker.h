#pragma once
// RolloutWorker: RLlib's sampler for one process. It steps `num_envs_per_worker`
// copies of an env as one batch, asks its policy (any ray::rllib::Policy) for all
// their actions in one call, has the policy postprocess each finished trajectory
// fragment, and returns the fragments with the episodes that finished while sampling.
// A remote rollout worker is this class hosted by an actor (trainer.h).
//
// batch_mode (CommonConfig):
//  * truncate_episodes: each Sample() steps every env sample_batch_size times; an
//    episode cut by the fragment end is postprocessed with the observation after it
//    (the policy bootstraps from it) and goes on in the next call.
//  * complete_episodes: Sample() steps until the episodes that finished hold at least
//    sample_batch_size * num_envs_per_worker steps, and returns only whole episodes;
//    running ones go on in the next call. (An env that never ends never returns.)
// An episode cut by the env's time limit is postprocessed with its final observation,
// a terminated one with none (no bootstrap), as RLlib's postprocessing.
// Not thread-safe.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <msgpack.hpp>
#include <ray/rllib/policy.h>

#include "runtime/base/status.h"
#include "runtime/rllib/common_config.h"
#include "runtime/rllib/env/vector_env.h"

namespace ray::rllib {

// What one Sample() call produced.
struct SampleResult {
  SampleBatch batch;
  std::vector<double> episode_returns;  // episodes that ended during this call
  std::vector<int64_t> episode_lengths;
  MSGPACK_DEFINE_ARRAY(batch, episode_returns, episode_lengths);
};

class RolloutWorker {
 public:
  // Makes this worker's policy for the env's spaces; `seed` is config.seed offset by
  // the worker index (null: unseeded).
  using PolicyFactory =
      std::function<Result<std::unique_ptr<Policy>>(const PolicySpec&, std::optional<int64_t> seed)>;

  // The env by registered name; `worker_index` (0: the local worker) offsets seeds.
  static Result<std::unique_ptr<RolloutWorker>> Create(const std::string& env,
                                                       const CommonConfig& config,
                                                       int worker_index,
                                                       const PolicyFactory& make_policy);
  // A policy's exception becomes an error naming it (InvalidArgument or Internal).
  Result<SampleResult> Sample();
  Status SetWeights(const std::vector<float>& weights);
  Policy& policy() { return *policy_; }
  static PolicySpec SpecFor(const VectorEnv& env);

 private:
  RolloutWorker(std::unique_ptr<VectorEnv> env, std::unique_ptr<Policy> policy,
                const CommonConfig& config);
  void SampleOrThrow(SampleResult* out);
  void Finish(int slot, const std::vector<float>& next_obs, SampleResult* out);

  std::unique_ptr<VectorEnv> env_;
  std::unique_ptr<Policy> policy_;
  CommonConfig config_;
  std::vector<float> obs_;
  std::vector<SampleBatch> open_;  // the running episode fragment of each env
  std::vector<double> returns_;    // running return of each env's episode
  std::vector<int64_t> lengths_;
  std::vector<int64_t> episode_ids_;
  int64_t next_episode_id_ = 0;
};

}  // namespace ray::rllib
