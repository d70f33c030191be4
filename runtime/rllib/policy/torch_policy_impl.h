#pragma once
// TorchPolicy's internals, for the .cc files of policies that derive from it (they
// include torch). Not part of any public interface.

#include <torch/torch.h>

#include <map>
#include <memory>
#include <random>
#include <string>

#include "runtime/rllib/policy/action_dist.h"
#include "runtime/rllib/policy/fcnet.h"
#include "runtime/rllib/policy/torch_policy.h"

namespace ray::rllib {

// A SampleBatch as tensors, [n] or [n, width]. advantages/value_targets are
// undefined when the batch is not postprocessed.
struct TorchBatch {
  int64_t n = 0;
  torch::Tensor obs, actions, rewards, action_dist_inputs, action_logp, vf_preds;
  torch::Tensor advantages, value_targets;
  // Rows `idx` (an int64 tensor) of every defined column.
  TorchBatch Select(const torch::Tensor& idx) const;
};

struct LossOutput {
  torch::Tensor total_loss;                      // scalar, with grad
  std::map<std::string, torch::Tensor> stats;    // scalars, RLlib's stat names
};

struct TorchPolicy::Impl {
  PolicySpec spec;
  std::unique_ptr<CommonConfig> config;  // the common part of the algorithm's config
  FullyConnectedNetwork model{nullptr};
  std::unique_ptr<torch::optim::Optimizer> optimizer;  // Adam unless UseRMSProp
  int64_t timestep = 0;  // env steps sampled/trained so far (drives lr_schedule)
  std::mt19937_64 rng;

  TorchBatch ToTensors(const SampleBatch& b) const;
  // Clips the gradients' global norm to config->grad_clip, if set.
  void ClipGradients();
};

// Tensor <-> flat vector helpers.
torch::Tensor ToTensor(const std::vector<float>& v, int64_t rows, int64_t width);
std::vector<float> ToVector(const torch::Tensor& t);

}  // namespace ray::rllib
