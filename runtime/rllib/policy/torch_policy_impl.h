#pragma once
// TorchPolicy's internals, for the .cc files of policies that derive from it (they
// include torch). Not part of any public interface.

#include <torch/torch.h>

#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "runtime/rllib/policy/action_dist.h"
#include "runtime/rllib/policy/model.h"
#include "runtime/rllib/policy/torch_policy.h"

namespace ray::rllib {

// A SampleBatch as tensors, [n] or [n, width]. advantages/value_targets are
// undefined when the batch is not postprocessed.
//
// For a recurrent model the rows are also S sequences laid back to back: runs of one
// episode's rows of at most max_seq_len (seq_lens [S]), each unrolled from the state
// recorded at its first row (state_in [S, state_size]); undefined for a stateless one.
struct TorchBatch {
  int64_t n = 0;
  torch::Tensor obs, actions, rewards, action_dist_inputs, action_logp, vf_preds;
  torch::Tensor advantages, value_targets;
  torch::Tensor state_in, seq_lens;
  std::vector<int64_t> seq_starts;  // first row of each sequence

  int64_t num_sequences() const { return static_cast<int64_t>(seq_starts.size()); }
  // Rows `idx` (an int64 tensor) of every defined column. A stateless batch only.
  TorchBatch Select(const torch::Tensor& idx) const;
  // Sequences `seqs` (indices into seq_starts), in that order, with their rows.
  TorchBatch SelectSequences(const std::vector<int64_t>& seqs) const;
};

struct LossOutput {
  torch::Tensor total_loss;                      // scalar, with grad
  std::map<std::string, torch::Tensor> stats;    // scalars, RLlib's stat names
};

struct TorchPolicy::Impl {
  PolicySpec spec;
  std::unique_ptr<CommonConfig> config;  // the common part of the algorithm's config
  std::shared_ptr<ActorCriticModel> model;
  std::unique_ptr<torch::optim::Optimizer> optimizer;  // Adam unless UseRMSProp
  int64_t timestep = 0;  // env steps sampled/trained so far (drives lr_schedule)
  std::mt19937_64 rng;

  // The batch as tensors; a recurrent model's batch is cut into sequences.
  TorchBatch ToTensors(const SampleBatch& b) const;
  // The model on a batch's rows (recurrent: on its sequences).
  ModelOutput Forward(const TorchBatch& b) const { return model->Forward(b.obs, b.state_in, b.seq_lens); }
  // The model on rows of observations; a stateless model only.
  ModelOutput ForwardRows(const torch::Tensor& obs) const;
  // Clips the gradients' global norm to config->grad_clip, if set.
  void ClipGradients();
};

// Tensor <-> flat vector helpers.
torch::Tensor ToTensor(const std::vector<float>& v, int64_t rows, int64_t width);
std::vector<float> ToVector(const torch::Tensor& t);

}  // namespace ray::rllib
