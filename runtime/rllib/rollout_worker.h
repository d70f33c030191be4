#pragma once
// RolloutWorker: RLlib's sampler for one process. It steps `num_envs_per_worker`
// copies of an env as one batch, asks the policy for all their actions in one call,
// and returns postprocessed (GAE) fragments with the episodes that finished while
// sampling. A remote rollout worker is this class hosted by an actor.
//
// Fragments: each call samples `sample_batch_size` steps per env
// (truncate_episodes); an episode cut by the fragment end or the time limit is
// bootstrapped from V(next obs), a terminated one from 0, as RLlib's
// postprocess_ppo_gae. Not thread-safe.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <msgpack.hpp>

#include "runtime/base/status.h"
#include "runtime/rllib/env/vector_env.h"
#include "runtime/rllib/ppo/ppo_policy.h"

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
  // The env by registered name; `worker_index` (0: the local worker) offsets seeds.
  static Result<std::unique_ptr<RolloutWorker>> Create(const std::string& env,
                                                       const PPOConfig& config,
                                                       int worker_index);
  Result<SampleResult> Sample();
  Status SetWeights(const std::vector<float>& weights) { return policy_->SetWeights(weights); }
  PPOPolicy& policy() { return *policy_; }
  static PolicySpec SpecFor(const VectorEnv& env);

 private:
  RolloutWorker(std::unique_ptr<VectorEnv> env, std::unique_ptr<PPOPolicy> policy);
  Status Finish(int slot, float last_value, SampleResult* out);

  std::unique_ptr<VectorEnv> env_;
  std::unique_ptr<PPOPolicy> policy_;
  std::vector<float> obs_;
  std::vector<SampleBatch> open_;  // the running episode fragment of each env
  std::vector<double> returns_;    // running return of each env's episode
  std::vector<int64_t> lengths_;
  std::vector<int64_t> episode_ids_;
  int64_t next_episode_id_ = 0;
};

}  // namespace ray::rllib
