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
//
// What else the CommonConfig says (RLlib's sampler):
//  * horizon / soft_horizon: an episode that reaches `horizon` steps ends there (a
//    truncation, postprocessed with the observation after it); the env slot is reset,
//    or with soft_horizon goes on from that observation as a new episode.
//  * env_config reaches each env's factory with this worker's index and the env's
//    slot (vector_index).
//  * clip_rewards applies to the rewards in the batch; episode returns stay raw.
//  * observation_filter MeanStdFilter: every observation (also the last one of an
//    episode) updates this worker's filter and is normalised by it before the policy
//    or the batch sees it (filter(); the trainer merges and syncs the filters).
//  * callbacks: the plugin's episode callbacks run as episodes start, step and end
//    (their custom metrics come back with each finished episode), on_sample_end
//    once per Sample(). Its errors fail Sample() naming the plugin.
// A recurrent policy's state (Policy::StateSize()) is kept per env: zeros when an
// episode starts, recorded in the batch before each step (state_in). Episode ids are
// unique across workers, recreated ones included (worker index and random bits on top).
// Not thread-safe.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <msgpack.hpp>
#include <ray/rllib/policy.h>

#include "runtime/base/status.h"
#include "runtime/rllib/callbacks_plugin.h"
#include "runtime/rllib/common_config.h"
#include "runtime/rllib/env/vector_env.h"
#include "runtime/rllib/observation_filter.h"

namespace ray::rllib {

// What one Sample() call produced.
struct SampleResult {
  SampleBatch batch;
  std::vector<double> episode_returns;  // episodes that ended during this call
  std::vector<int64_t> episode_lengths;
  std::vector<std::map<std::string, double>> episode_custom_metrics;  // one per episode
  MSGPACK_DEFINE_ARRAY(batch, episode_returns, episode_lengths, episode_custom_metrics);
};

class RolloutWorker {
 public:
  // Makes this worker's policy for the env's spaces; `seed` is config.seed offset by
  // the worker index (null: unseeded).
  using PolicyFactory =
      std::function<Result<std::unique_ptr<Policy>>(const PolicySpec&, std::optional<int64_t> seed)>;

  // The env by registered name; `worker_index` (0: the local worker) offsets seeds
  // and is the env's and the callbacks' worker index. Loads config.env_plugin and
  // config.callbacks (their errors are returned).
  static Result<std::unique_ptr<RolloutWorker>> Create(const std::string& env,
                                                       const CommonConfig& config,
                                                       int worker_index,
                                                       const PolicyFactory& make_policy);
  // A policy's exception becomes an error naming it (InvalidArgument or Internal).
  Result<SampleResult> Sample();
  Status SetWeights(const std::vector<float>& weights);
  Policy& policy() { return *policy_; }
  // The observation filter; null for NoFilter.
  MeanStdFilter* filter() { return filter_.get(); }
  static PolicySpec SpecFor(const VectorEnv& env);

 private:
  RolloutWorker(std::unique_ptr<VectorEnv> env, std::unique_ptr<Policy> policy,
                const CommonConfig& config, int worker_index);
  void SampleOrThrow(SampleResult* out);
  // Postprocesses slot `slot`'s open trajectory (bootstrapping from `next_obs`), runs
  // on_postprocess_traj on it (the episode's current raw observation: `raw_obs`) and
  // appends it to the sample.
  void Finish(int slot, const std::vector<float>& next_obs, const float* raw_obs, SampleResult* out);
  // Copies an observation and runs it through the filter (updating it).
  std::vector<float> Filtered(const float* raw);
  // Slot `i`'s episode ended; `raw_last` is its last observation.
  void EndEpisode(int i, const float* raw_last, SampleResult* out);
  // Starts slot `i`'s next episode, whose first observation is `raw_first`.
  void StartEpisode(int i, const float* raw_first);
  RayRllibEpisode EpisodeView(int i, const float* raw_obs) const;
  static void OrThrow(const Status& st);

  std::unique_ptr<VectorEnv> env_;
  std::unique_ptr<Policy> policy_;
  CommonConfig config_;
  std::vector<float> obs_;
  std::vector<SampleBatch> open_;  // the running episode fragment of each env
  std::vector<double> returns_;    // running return of each env's episode
  std::vector<int64_t> lengths_;
  std::vector<int64_t> episode_ids_;
  std::vector<float> states_;  // a recurrent policy's state of each env's episode
  std::vector<double> last_rewards_;  // for the callbacks
  int64_t next_episode_id_ = 0;
  std::unique_ptr<MeanStdFilter> filter_;
  std::unique_ptr<CallbacksPlugin> callbacks_;
};

}  // namespace ray::rllib
