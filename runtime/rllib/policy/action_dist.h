#pragma once
// Action distributions parameterised by a model's output ("distribution inputs"), as
// RLlib's TorchCategorical and TorchDiagGaussian (models/torch/torch_action_dist.py).
// Includes torch: only the learner-side sources and torch tests include this header.
//
//   Categorical(logits [B, n]):    actions [B] (indices as float or integer)
//   DiagGaussian(inputs [B, 2d]):  first half mean, second half log_std; actions [B, d];
//                                  logp/entropy/kl are summed over the d dimensions.

#include <torch/torch.h>

#include <memory>

namespace ray::rllib {

class ActionDistribution {
 public:
  virtual ~ActionDistribution() = default;
  // A random action (uses torch's global generator; torch::manual_seed fixes it).
  virtual torch::Tensor Sample() const = 0;
  // The mode: argmax of the logits, or the mean.
  virtual torch::Tensor DeterministicSample() const = 0;
  // log pi(action), shape [B].
  virtual torch::Tensor Logp(const torch::Tensor& actions) const = 0;
  // Entropy per row, shape [B].
  virtual torch::Tensor Entropy() const = 0;
  // KL(this || other) per row, shape [B]; `other` must be the same kind and size.
  virtual torch::Tensor Kl(const ActionDistribution& other) const = 0;
};

class Categorical : public ActionDistribution {
 public:
  explicit Categorical(torch::Tensor logits);
  torch::Tensor Sample() const override;
  torch::Tensor DeterministicSample() const override;
  torch::Tensor Logp(const torch::Tensor& actions) const override;
  torch::Tensor Entropy() const override;
  torch::Tensor Kl(const ActionDistribution& other) const override;

 private:
  torch::Tensor log_probs_;  // log_softmax(logits), [B, n]
};

class DiagGaussian : public ActionDistribution {
 public:
  explicit DiagGaussian(const torch::Tensor& inputs);
  torch::Tensor Sample() const override;
  torch::Tensor DeterministicSample() const override;
  torch::Tensor Logp(const torch::Tensor& actions) const override;
  torch::Tensor Entropy() const override;
  torch::Tensor Kl(const ActionDistribution& other) const override;

 private:
  torch::Tensor mean_;     // [B, d]
  torch::Tensor log_std_;  // [B, d]
};

// Categorical when `discrete`, else DiagGaussian.
std::unique_ptr<ActionDistribution> MakeActionDistribution(bool discrete,
                                                           const torch::Tensor& inputs);

}  // namespace ray::rllib
