#pragma once
// The PPO surrogate loss, as RLlib's torch PPO (ppo_torch_policy.py, Ray >= 1.1;
// the same form is in the new-stack ppo_torch_learner.py).
//
// Proximal Policy Optimization: Schulman, Wolski, Dhariwal, Radford, Klimov,
// "Proximal Policy Optimization Algorithms", arXiv:1707.06347. Per sample:
//   ratio   = exp(logp_new(a) - logp_old(a))
//   surr    = min(A * ratio, A * clamp(ratio, 1 - clip_param, 1 + clip_param))
//   vf_loss = clamp((V(s) - value_target)^2, 0, vf_clip_param)
//   kl      = KL(pi_old || pi_new)
//   total   = mean(-surr + vf_loss_coeff * vf_loss - entropy_coeff * entropy)
//             + kl_coeff * mean(kl)            (the KL term only when kl_coeff > 0)
//
// vf_clip_param clips the squared error itself, not the value change: RLlib <= 1.0
// used PPO2's max((V - R)^2, (V_old + clamp(V - V_old, ±c) - R)^2); from 1.1 on it is
// clamp(squared error, 0, vf_clip_param), which is what is implemented (errors larger
// than sqrt(vf_clip_param) then give no value gradient, so scale it to the returns).
// Includes torch: learner-side sources only.

#include <torch/torch.h>

#include "runtime/rllib/policy/action_dist.h"

namespace ray::rllib {

struct PPOLossCoeffs {
  double clip_param = 0.3;
  double vf_clip_param = 10.0;
  double vf_loss_coeff = 1.0;
  double entropy_coeff = 0.0;
  double kl_coeff = 0.2;
  bool use_critic = true;  // false: no value loss
};

// Mean terms, as RLlib's stats; all are scalars and only total_loss carries grad
// that the optimiser should use.
struct PPOLossTerms {
  torch::Tensor total_loss;
  torch::Tensor policy_loss;  // mean(-surr)
  torch::Tensor vf_loss;      // mean(clipped squared error)
  torch::Tensor kl;           // mean KL(old || new); reported even when kl_coeff == 0
  torch::Tensor entropy;      // mean entropy of the new distribution
  torch::Tensor vf_explained_var;
};

// `curr`/`values`: the model's current outputs on the minibatch; `prev`: the
// behaviour distribution rebuilt from the batch's action_dist_inputs. All per-sample
// tensors are [B] (actions as the distribution expects).
PPOLossTerms ComputePPOLoss(const ActionDistribution& curr, const torch::Tensor& values,
                            const ActionDistribution& prev, const torch::Tensor& actions,
                            const torch::Tensor& old_logp, const torch::Tensor& advantages,
                            const torch::Tensor& value_targets, const PPOLossCoeffs& coeffs);

// max(-1, 1 - Var[y - pred] / Var[y]) with unbiased variances; -1 when Var[y] == 0.
torch::Tensor ExplainedVariance(const torch::Tensor& y, const torch::Tensor& pred);

}  // namespace ray::rllib
