#pragma once
// The default fully connected actor-critic model, as RLlib's torch
// FullyConnectedNetwork (models/torch/fcnet.py):
//
//   policy trunk: obs -> [Linear(h_i) + act] for h_i in fcnet_hiddens -> logits
//   value:        vf_share_layers ? trunk features -> Linear(1)
//                                 : obs -> own copy of the hidden layers -> Linear(1)
//
// Logits are num_actions for Discrete. For Box(d) they are 2d ([mean, log_std], the
// log_std state-dependent) unless free_log_std, in which case the net outputs d
// means and a learned, state-independent log_std vector (init 0) is appended.
//
// Initialisation follows RLlib's normc_initializer: each output row of a weight
// matrix is a Gaussian vector scaled to norm 1.0 (hidden layers) or 0.01 (logits and
// value head, so the initial policy is near-uniform and V is near 0); biases are 0.
// Includes torch: learner-side sources only.

#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

#include "runtime/rllib/common_config.h"
#include "runtime/rllib/policy/model.h"

namespace ray::rllib {

// Pieces the built-in models share: a Linear layer with RLlib's normc initialisation
// (each output row scaled to norm `stddev`, bias 0), the hidden-layer stack of
// fcnet_hiddens, and the configured activation.
torch::nn::Linear NormcLinear(int in, int out, double stddev);
// Appends Linear(h_i) layers for h_i in `hiddens` to `layers`; returns the last width.
int AddHiddenLayers(torch::nn::ModuleList& layers, int in, const std::vector<int>& hiddens);
torch::Tensor RunHiddenLayers(const torch::nn::ModuleList& layers, torch::Tensor x,
                              const std::string& activation);

// The distribution-input head the built-in models share: Linear(logits) (normc 0.01)
// to num_actions (Discrete) or 2d (Box: [mean, log_std]), or, with free_log_std and
// Box actions, d means and a learned state-independent log_std (init 0) appended.
// Registers "logits" (and "free_log_std") on `owner`.
class ActionHead {
 public:
  ActionHead() = default;
  ActionHead(torch::nn::Module& owner, int in, int num_actions, bool discrete, bool free_log_std);
  // features [B, in] -> distribution inputs [B, dist_dim].
  torch::Tensor Apply(const torch::Tensor& features);
  int dist_dim() const { return dist_dim_; }

 private:
  int dist_dim_ = 0;
  torch::nn::Linear logits_{nullptr};
  torch::Tensor free_log_std_;  // defined only with free_log_std and Box actions
};

class FullyConnectedNetwork : public ActorCriticModel {
 public:
  // `discrete`: Discrete(num_actions) else Box(num_actions). The config must have
  // passed CommonConfig::ValidateCommon (activation name).
  FullyConnectedNetwork(int obs_dim, int num_actions, bool discrete, const ModelConfig& config);

  // obs [B, obs_dim] -> (distribution inputs [B, dist_dim], values [B]).
  std::pair<torch::Tensor, torch::Tensor> forward(const torch::Tensor& obs);
  ModelOutput Forward(const torch::Tensor& obs, const torch::Tensor&, const torch::Tensor&) override;

  int dist_dim() const override { return head_.dist_dim(); }

 private:
  ModelConfig config_;
  torch::nn::ModuleList hidden_{nullptr};     // policy trunk
  torch::nn::ModuleList vf_hidden_{nullptr};  // separate value trunk (may be empty)
  ActionHead head_;
  torch::nn::Linear value_{nullptr};
};

}  // namespace ray::rllib
