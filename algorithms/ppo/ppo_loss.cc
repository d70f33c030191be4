#include "algorithms/ppo/ppo_loss.h"

namespace ray::rllib {

torch::Tensor ExplainedVariance(const torch::Tensor& y, const torch::Tensor& pred) {
  // Branch-free (no item() sync): Var[y] == 0 or fewer than 2 samples give -1.
  auto y_var = y.var();
  auto ev = torch::clamp_min(1.0 - (y - pred).var() / y_var, -1.0);
  auto degenerate = torch::logical_or(y_var == 0, torch::isnan(y_var));
  return torch::where(degenerate, torch::full_like(ev, -1.0), ev);
}

PPOLossTerms ComputePPOLoss(const ActionDistribution& curr, const torch::Tensor& values,
                            const ActionDistribution& prev, const torch::Tensor& actions,
                            const torch::Tensor& old_logp, const torch::Tensor& advantages,
                            const torch::Tensor& value_targets, const PPOLossCoeffs& c) {
  PPOLossTerms t;
  auto logp_ratio = torch::exp(curr.Logp(actions) - old_logp);
  auto surrogate = torch::min(advantages * logp_ratio,
                              advantages * torch::clamp(logp_ratio, 1.0 - c.clip_param,
                                                        1.0 + c.clip_param));
  auto entropy = curr.Entropy();
  t.kl = prev.Kl(curr).mean();
  t.entropy = entropy.mean();
  t.policy_loss = (-surrogate).mean();
  auto per_sample = -surrogate - c.entropy_coeff * entropy;
  if (c.use_critic) {
    auto vf_loss = torch::clamp((values - value_targets).pow(2), 0.0, c.vf_clip_param);
    t.vf_loss = vf_loss.mean();
    per_sample = per_sample + c.vf_loss_coeff * vf_loss;
    t.vf_explained_var = ExplainedVariance(value_targets.detach(), values.detach());
  } else {
    t.vf_loss = torch::zeros({}, values.options());
    t.vf_explained_var = torch::zeros({}, values.options());
  }
  t.total_loss = per_sample.mean();
  if (c.kl_coeff > 0.0) t.total_loss = t.total_loss + c.kl_coeff * t.kl;
  return t;
}

}  // namespace ray::rllib
