#pragma once
// DQNPolicy: RLlib 0.7's DQN policy (Mnih et al. 2015) with its Rainbow options
// double_q (van Hasselt et al. 2016), dueling (Wang et al. 2016), n_step,
// prioritized-replay importance weights, distributional Q (num_atoms > 1, Bellemare et
// al. 2017) and noisy networks (noisy, Fortunato et al. 2017), on a Discrete action
// space.
//
//  * Q network: the model's trunk (model.fcnet_hiddens, model.fcnet_activation), then
//    an advantage head of `hiddens` relu layers -> num_actions; with dueling also a
//    state-value head of `hiddens` relu layers -> 1, Q = V + A - mean_a A. A target
//    network of the same shape is updated by UpdateTarget() (and at construction).
//    With num_atoms > 1 each head gives num_atoms logits per output (dueling centres
//    the advantages atom by atom): a distribution over returns on num_atoms evenly
//    spaced atoms from v_min to v_max, and Q is its mean. With noisy, the heads' layers
//    (not the trunk's) are noisy linear layers, with fresh noise at every forward
//    pass of training and of exploring ComputeActions; QValues and greedy actions use
//    the mean weights.
//  * ComputeActions: argmax_a Q(obs, a); with explore, a uniformly random action with
//    probability epsilon = config.EpsilonAt(timestep) (OnGlobalVarUpdate sets the
//    timestep; with noisy, set exploration_final_eps and exploration_fraction to make
//    it small, as RLlib's Rainbow examples do). action_dist_inputs are the Q values.
//  * Postprocess: fills new_obs (the next row's obs; after the last row the next_obs
//    given, or zeros with done when there is none) and, with n_step > 1, RLlib's
//    _adjust_nstep within the fragment: reward_i += sum_{j<n} gamma^j r_{i+j}, new_obs
//    and done from row i+n-1 (fewer at the fragment's end).
//  * LearnOnBatch: td = Q(s,a) - (r + gamma^n_step (1 - done) Q_target(s', a*)), a* =
//    argmax Q(s') (double_q) or argmax Q_target(s'); loss = mean(weights *
//    huber(td)) (delta 1); one Adam step (lr, adam_epsilon) with the global norm
//    clipped to grad_norm_clipping. With num_atoms > 1 the target distribution of
//    (s', a*) is projected onto the atoms (ProjectOntoSupport) and the loss is
//    mean(weights * cross-entropy(target, predicted)); the cross-entropy is the "td".
//    Stats: mean_q, min_q, max_q, mean_td_error, total_loss, cur_lr; LastTDErrors()
//    gives td per row for the priorities.
// Torch-free header; not thread-safe.

#include <memory>
#include <string>
#include <vector>

#include <ray/rllib/policy.h>

#include "algorithms/dqn/dqn_config.h"
#include "runtime/base/status.h"
#include "runtime/rllib/optimizers/sync_replay_optimizer.h"

namespace ray::rllib {

class DQNPolicy : public Policy, public ReplayPolicy {
 public:
  // InvalidArgument for a Box action space or a bad config.
  static Result<std::unique_ptr<DQNPolicy>> Create(const PolicySpec& spec, const DQNConfig& config);
  ~DQNPolicy() override;

  const PolicySpec& spec() const override { return spec_; }
  ActionBatch ComputeActions(const std::vector<float>& obs, bool explore = true) override;
  void Postprocess(SampleBatch* traj, const std::vector<float>& next_obs) override;
  LearnerStats LearnOnBatch(const SampleBatch& batch) override;
  Gradients ComputeGradients(const SampleBatch& batch) override;
  void ApplyGradients(const std::vector<float>& grads) override;
  std::vector<float> GetWeights() const override;
  void SetWeights(const std::vector<float>& weights) override;
  void OnGlobalVarUpdate(int64_t timestep) override { timestep_ = timestep; }
  void SaveState(const std::string& path) const override;
  void RestoreState(const std::string& path) override;

  std::vector<float> LastTDErrors() const override { return last_td_; }
  void UpdateTarget() override;
  std::vector<float> ComputeTDErrors(const SampleBatch& batch) override;

  // Q(obs, .) of the online (or target) network, num_actions per row (without noise).
  std::vector<float> QValues(const std::vector<float>& obs, bool target = false) const;
  double epsilon() const { return config_.EpsilonAt(timestep_); }
  int64_t timestep() const { return timestep_; }

 private:
  DQNPolicy(const PolicySpec& spec, const DQNConfig& config);
  std::vector<float> Q(const std::vector<float>& obs, bool target, bool noise) const;
  struct Nets;

  PolicySpec spec_;
  DQNConfig config_;
  int64_t timestep_ = 0;
  std::vector<float> last_td_;
  std::unique_ptr<Nets> nets_;
};

// Distributional DQN's target (RLlib 0.7's QLoss with num_atoms > 1): each row's
// distribution `probs` (atoms per row, on evenly spaced atoms z from v_min to v_max)
// moved to r + discount (1 - done) z, clipped to [v_min, v_max], and each atom's mass
// split between the two atoms beside where it lands (all of it to one it lands on).
// Returns the projected probabilities, atoms per row.
std::vector<float> ProjectOntoSupport(const std::vector<float>& rewards, const std::vector<float>& dones,
                                      const std::vector<float>& probs, double discount, double v_min,
                                      double v_max);

}  // namespace ray::rllib
