#include "runtime/rllib/policy/action_dist.h"

#include <cmath>

namespace ray::rllib {

Categorical::Categorical(torch::Tensor logits) : log_probs_(torch::log_softmax(logits, -1)) {}

torch::Tensor Categorical::Sample() const {
  return torch::multinomial(log_probs_.exp(), 1).squeeze(-1);
}

torch::Tensor Categorical::DeterministicSample() const { return log_probs_.argmax(-1); }

torch::Tensor Categorical::Logp(const torch::Tensor& actions) const {
  return log_probs_.gather(-1, actions.to(torch::kLong).reshape({-1, 1})).squeeze(-1);
}

torch::Tensor Categorical::Entropy() const {
  return -(log_probs_.exp() * log_probs_).sum(-1);
}

torch::Tensor Categorical::Kl(const ActionDistribution& other) const {
  const auto& q = dynamic_cast<const Categorical&>(other);
  return (log_probs_.exp() * (log_probs_ - q.log_probs_)).sum(-1);
}

DiagGaussian::DiagGaussian(const torch::Tensor& inputs) {
  auto halves = inputs.chunk(2, -1);
  mean_ = halves[0];
  log_std_ = halves[1];
}

torch::Tensor DiagGaussian::Sample() const {
  return mean_ + log_std_.exp() * torch::randn_like(mean_);
}

torch::Tensor DiagGaussian::DeterministicSample() const { return mean_; }

torch::Tensor DiagGaussian::Logp(const torch::Tensor& actions) const {
  static const double kHalfLog2Pi = 0.5 * std::log(2.0 * M_PI);
  auto a = actions.reshape_as(mean_);
  auto z = (a - mean_) * torch::exp(-log_std_);
  return (-0.5 * z * z - log_std_ - kHalfLog2Pi).sum(-1);
}

torch::Tensor DiagGaussian::Entropy() const {
  static const double kHalfLog2PiE = 0.5 + 0.5 * std::log(2.0 * M_PI);
  return (log_std_ + kHalfLog2PiE).sum(-1);
}

torch::Tensor DiagGaussian::Kl(const ActionDistribution& other) const {
  const auto& q = dynamic_cast<const DiagGaussian&>(other);
  auto var_ratio = torch::exp(2.0 * (log_std_ - q.log_std_));
  auto t1 = (mean_ - q.mean_) * torch::exp(-q.log_std_);
  return (0.5 * (var_ratio + t1 * t1 - 1.0) - (log_std_ - q.log_std_)).sum(-1);
}

std::unique_ptr<ActionDistribution> MakeActionDistribution(bool discrete,
                                                           const torch::Tensor& inputs) {
  if (discrete) return std::make_unique<Categorical>(inputs);
  return std::make_unique<DiagGaussian>(inputs);
}

}  // namespace ray::rllib
