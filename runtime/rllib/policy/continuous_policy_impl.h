#pragma once
// ContinuousReplayPolicy's internals, for the .cc files of the policies that derive
// from it (they include torch).

#include <torch/torch.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/rllib/policy/continuous.h"
#include "runtime/rllib/policy/continuous_policy.h"

namespace ray::rllib {

// A replayed batch as tensors: obs/new_obs [n, obs_dim], actions [n, d] mapped to
// [-1, 1], rewards/dones/weights [n].
struct ReplayTensors {
  int64_t n = 0;
  torch::Tensor obs, actions, rewards, new_obs, dones, weights;
};

// One optimiser and the parameters it steps (their grads clipped together).
struct OptimizerGroup {
  torch::optim::Optimizer* optimizer;
  std::vector<torch::Tensor> params;
};

struct ContinuousNets {
  ModuleSet weights;     // GetWeights order: the online networks (and log_alpha)
  ModuleSet checkpoint;  // weights + targets + optimisers
  // (target parameters, online parameters) pairs for UpdateTarget.
  std::vector<std::pair<std::vector<torch::Tensor>, std::vector<torch::Tensor>>> targets;
  std::vector<OptimizerGroup> groups;
  torch::Tensor low, high;  // the Box's bounds, [d]
};

struct LossStep {
  std::vector<torch::Tensor> grads;  // per weight, GetWeights order
  std::vector<bool> step_groups;     // per OptimizerGroup (empty: all)
  LearnerStats stats;
  torch::Tensor td;                  // [n], |td| per row
};

// The gradients of `loss` with respect to `params` only (other parameters' .grad
// untouched), written into `out` at `offset` onwards.
void GradInto(const torch::Tensor& loss, const std::vector<torch::Tensor>& params, std::vector<torch::Tensor>* out,
              size_t offset);

}  // namespace ray::rllib
