#pragma once
// PPOPolicy: the learner-and-actor half of RLlib's PPOTorchPolicy. It owns the model
// (FullyConnectedNetwork), the Adam optimiser and the adaptive KL coefficient, and
// offers batched inference for samplers, minibatch SGD on postprocessed batches, and
// weights as a flat float vector so they can travel between learner and workers.
//
// The header is torch-free (pimpl), so samplers and the plugin layer can use it
// without paying torch's compile time. Not thread-safe: one thread per policy. Torch's
// global RNG (seeded from config.seed) drives action sampling; intra-op threads are
// the process's torch::set_num_threads setting.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/rllib/ppo/ppo_config.h"
#include "runtime/rllib/ppo/sample_batch.h"

namespace ray::rllib {

// Shapes of the flattened observation and action spaces.
struct PolicySpec {
  int obs_dim = 0;
  int num_actions = 0;   // Discrete(n): n. Box(d): d.
  bool discrete = true;
};

// One row per observation. Actions are unclipped (the sampler clips Box actions to
// the space for the env, as RLlib's clip_actions, but trains on what was sampled).
struct ActionBatch {
  int action_dim = 1;  // floats per row of `actions`
  int dist_dim = 0;    // floats per row of `action_dist_inputs`
  std::vector<float> actions;
  std::vector<float> action_logp;
  std::vector<float> vf_preds;
  std::vector<float> action_dist_inputs;
};

// RLlib's learner stats (info/learner/default_policy/*), averaged over every
// minibatch update of one LearnOnBatch call. cur_kl_coeff is the coefficient the
// step used (before the adaptive update).
struct LearnerStats {
  double cur_kl_coeff = 0;
  double cur_lr = 0;
  double total_loss = 0;
  double policy_loss = 0;
  double vf_loss = 0;
  double vf_explained_var = 0;
  double kl = 0;
  double entropy = 0;
  double entropy_coeff = 0;
  int64_t num_sgd_steps = 0;  // minibatch updates performed

  std::map<std::string, double> ToMap() const;
};

// Sets torch's intra-op thread count for the whole process (torch::set_num_threads).
// One thread per sampler/learner process is best on small machines.
void SetTorchNumThreads(int num_threads);

class PPOPolicy {
 public:
  // InvalidArgument on a bad spec or a config that fails Validate().
  static Result<std::unique_ptr<PPOPolicy>> Create(const PolicySpec& spec, const PPOConfig& config);
  ~PPOPolicy();
  PPOPolicy(const PPOPolicy&) = delete;
  PPOPolicy& operator=(const PPOPolicy&) = delete;

  // obs: rows of spec.obs_dim floats (row-major). explore: sample from the
  // distribution; else take its mode. Runs under torch::NoGradGuard.
  Result<ActionBatch> ComputeActions(const std::vector<float>& obs, bool explore = true);
  // V(obs) per row, for bootstrapping truncated trajectories.
  Result<std::vector<float>> ComputeValues(const std::vector<float>& obs);

  // RLlib's postprocess_ppo_gae for one episode fragment: last_r = 0 if the last row
  // terminated, else V(next_obs) (next_obs: the observation after the last row).
  Status PostprocessTrajectory(SampleBatch* traj, const std::vector<float>& next_obs);

  // One PPO train step on a postprocessed batch: standardise advantages over the
  // whole batch, then num_sgd_iter epochs of shuffled minibatches of
  // sgd_minibatch_size (max(1, N / minibatch) per epoch; with N < minibatch the whole
  // batch), Adam at config.LrAt(env steps trained before this batch), optional
  // global-norm grad_clip; then update_kl with the mean KL.
  Result<LearnerStats> LearnOnBatch(const SampleBatch& batch);

  // All parameters flattened in WeightsLayout() order.
  std::vector<float> GetWeights() const;
  // InvalidArgument unless `weights` has exactly NumWeights() values.
  Status SetWeights(const std::vector<float>& weights);
  int64_t NumWeights() const;
  // "name:d0xd1,..." for every parameter; equal layouts mean compatible weights.
  std::string WeightsLayout() const;

  // Model, optimiser state, KL coefficient, steps trained and layout in one archive. Restore
  // fails with FailedPrecondition if the file's layout differs, DataLoss if unreadable.
  Status Save(const std::string& path) const;
  Status Restore(const std::string& path);

  double kl_coeff() const;
  const PPOConfig& config() const;
  const PolicySpec& spec() const;

 private:
  struct Impl;
  explicit PPOPolicy(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ray::rllib
