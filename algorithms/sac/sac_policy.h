#pragma once
// SACPolicy: RLlib 0.7's SAC policy (Haarnoja et al. 2018, "Soft Actor-Critic
// Algorithms and Applications") on a Box action space, with automatic entropy tuning.
//
//  * Actor: obs -> policy_model hidden layers -> [mean, log_std] (log_std clipped to
//    [-20, 2]); a = tanh(u), u ~ N(mean, std), mapped linearly onto the Box's bounds
//    (normalize_actions). With exploration_enabled a sample, else tanh(mean).
//  * Critics: Q(obs, a in [-1, 1]) -> Q_model hidden layers -> 1; a twin with twin_q;
//    target copies updated by tau.
//  * One learn step on a replayed batch (all losses from one forward pass, as RLlib):
//      target  = r + gamma^n_step (1 - done) (min_i Q_i^target(s', a') - alpha log pi(a'|s')),
//                a' ~ pi(s');
//      critic  = sum_i 0.5 mean(w (Q_i(s, a) - target)^2);
//      actor   = mean(alpha log pi(a~|s) - min_i Q_i(s, a~)), a~ ~ pi(s) (reparameterised);
//      alpha   = -mean(log_alpha (log pi(a~|s) + target_entropy)), target_entropy "auto"
//                = -dim(A); alpha starts at initial_alpha.
//    Three Adam optimisers (optimization.*_learning_rate); |td| = mean_i |Q_i - target|.
//    Stats: actor_loss, critic_loss, alpha_loss, alpha_value, target_entropy, mean_q,
//    max_q, min_q, log_pis_t.
// Torch-free header.

#include <memory>

#include "algorithms/sac/sac_config.h"
#include "runtime/rllib/policy/continuous_policy.h"

namespace ray::rllib {

class SACPolicy : public ContinuousReplayPolicy {
 public:
  // InvalidArgument for a Discrete action space, missing bounds or a bad config.
  static Result<std::unique_ptr<SACPolicy>> Create(const PolicySpec& spec, const SACConfig& config);
  ~SACPolicy() override;

  ActionBatch ComputeActions(const std::vector<float>& obs, bool explore = true) override;

  // min_i Q_i(obs, actions) of the online (or target) critics, actions in env units.
  std::vector<float> QValues(const std::vector<float>& obs, const std::vector<float>& actions,
                             bool target = false) const;
  double alpha() const;
  double target_entropy() const { return target_entropy_; }

 protected:
  LossStep Losses(const ReplayTensors& batch) override;

 private:
  SACPolicy(const PolicySpec& spec, const SACConfig& config);
  struct Nets;

  SACConfig config_;
  double target_entropy_;
  std::unique_ptr<Nets> sac_;
};

}  // namespace ray::rllib
