#pragma once
// Policy: RLlib's Policy contract (catalog RL-100, RLlib ~0.7), the part of an
// algorithm that acts and learns. A rollout worker hosts one policy of any kind: it
// asks it for actions, hands it each finished trajectory fragment to postprocess,
// and sets its weights; the trainer's copy learns. Part of the policy SDK
// (header-only, no torch), so a plugin can provide policies.
//
// Contract:
//  * ComputeActions(obs, explore) -> one row per observation. `obs` holds rows of
//    spec().obs_dim floats. explore: sample from the action distribution; else its mode.
//  * Postprocess(traj, next_obs) -> fills traj's `advantages` and `value_targets`
//    (RLlib's postprocess_trajectory; e.g. GAE). `traj` is consecutive steps of ONE
//    episode. `next_obs` is the observation after the last row (to bootstrap from),
//    empty when the last row terminated the episode.
//  * LearnOnBatch(batch) -> learner stats (RLlib's info/learner/default_policy/*);
//    the batch is postprocessed. Equivalent to ApplyGradients(ComputeGradients(batch))
//    for a policy that takes one gradient step per batch (the default).
//  * ComputeGradients(batch) -> the loss gradient, flattened in GetWeights() order,
//    and stats; the weights do not change. ApplyGradients(grads) takes one optimiser
//    step with them.
//  * GetWeights()/SetWeights(): every trainable parameter flattened in one fixed
//    order; weights from one policy fit any policy built from the same spec and config.
//  * OnGlobalVarUpdate(timestep): RLlib's on_global_var_update; the optimizer tells the
//    learning policy the env steps sampled so far before each step (schedules use it).
//  * SaveState(path)/RestoreState(path): everything a checkpoint needs to resume
//    learning (weights, optimiser state, schedules, coefficients) in one file.
//  * Recurrent policies (RLlib's use_lstm) carry StateSize() floats per row from one
//    step of an episode to the next (zeros at its start). The sampler calls
//    ComputeActionsWithState(obs, state_in, explore) with each row's state and keeps
//    ActionBatch::state_out for the row's next step; it stores each step's state_in in
//    the batch (SampleBatch::state_in), from which the learner unrolls sequences. A
//    stateless policy (StateSize() 0) needs neither.
//
// Errors are exceptions, as at every plugin boundary: std::invalid_argument for bad
// input (wrong sizes, a batch not postprocessed), std::runtime_error otherwise; the
// runtime turns them into errors naming the policy. A policy is not thread-safe.

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <msgpack.hpp>

#include "ray/rllib/sample_batch.h"

namespace ray::rllib {

// Shapes of the flattened observation and action spaces.
struct PolicySpec {
  int obs_dim = 0;
  int num_actions = 0;   // Discrete(n): n. Box(d): d.
  bool discrete = true;
  // Box actions: the space's bounds, num_actions each (empty: unknown, or Discrete).
  std::vector<float> action_low = {}, action_high = {};
};

// One row per observation. Actions are unclipped (the sampler clips Box actions to
// the space for the env, as RLlib's clip_actions, but trains on what was sampled).
// vf_preds is empty for a policy without a value function.
struct ActionBatch {
  int action_dim = 1;  // floats per row of `actions`
  int dist_dim = 0;    // floats per row of `action_dist_inputs`
  std::vector<float> actions;
  std::vector<float> action_logp;
  std::vector<float> vf_preds;
  std::vector<float> action_dist_inputs;
  // Recurrent policies: each row's state after this step, StateSize() floats per row.
  std::vector<float> state_out;
};

// Learner stats by RLlib's names (policy_loss, vf_loss, entropy, cur_lr, ...).
using LearnerStats = std::map<std::string, double>;

// A flat gradient (GetWeights() order) and the stats of the loss it came from.
struct Gradients {
  std::vector<float> grads;
  LearnerStats info;
  int64_t num_rows = 0;  // batch rows the gradient was computed on
  MSGPACK_DEFINE_MAP(grads, info, num_rows);
};

class Policy {
 public:
  virtual ~Policy() = default;

  virtual const PolicySpec& spec() const = 0;
  virtual ActionBatch ComputeActions(const std::vector<float>& obs, bool explore = true) = 0;
  virtual void Postprocess(SampleBatch* traj, const std::vector<float>& next_obs) = 0;

  virtual int StateSize() const { return 0; }
  virtual ActionBatch ComputeActionsWithState(const std::vector<float>& obs,
                                              const std::vector<float>& state_in, bool explore) {
    if (!state_in.empty()) {
      throw std::invalid_argument("ComputeActionsWithState: this policy keeps no recurrent state");
    }
    return ComputeActions(obs, explore);
  }

  virtual LearnerStats LearnOnBatch(const SampleBatch& batch) {
    Gradients g = ComputeGradients(batch);
    ApplyGradients(g.grads);
    return g.info;
  }
  virtual Gradients ComputeGradients(const SampleBatch& batch) = 0;
  virtual void ApplyGradients(const std::vector<float>& grads) = 0;

  virtual std::vector<float> GetWeights() const = 0;
  virtual void SetWeights(const std::vector<float>& weights) = 0;

  virtual void OnGlobalVarUpdate(int64_t timestep) {}

  virtual void SaveState(const std::string& path) const = 0;
  virtual void RestoreState(const std::string& path) = 0;
};

}  // namespace ray::rllib
