#include "runtime/rllib/policy/fcnet.h"

namespace ray::rllib {
namespace {

torch::nn::Linear NormcLinear(int in, int out, double stddev) {
  torch::nn::Linear layer(in, out);
  torch::NoGradGuard no_grad;
  auto w = torch::randn({out, in});
  w *= stddev / w.pow(2).sum(1, /*keepdim=*/true).sqrt();
  layer->weight.copy_(w);
  layer->bias.zero_();
  return layer;
}

}  // namespace

FullyConnectedNetworkImpl::FullyConnectedNetworkImpl(int obs_dim, int num_actions, bool discrete,
                                                     const ModelConfig& config)
    : config_(config) {
  const bool free_log_std = !discrete && config.free_log_std;
  const int num_outputs = discrete || free_log_std ? num_actions : 2 * num_actions;
  dist_dim_ = discrete ? num_actions : 2 * num_actions;

  hidden_ = register_module("hidden", torch::nn::ModuleList());
  int prev = obs_dim;
  for (int size : config.fcnet_hiddens) {
    hidden_->push_back(NormcLinear(prev, size, 1.0));
    prev = size;
  }
  logits_ = register_module("logits", NormcLinear(prev, num_outputs, 0.01));
  if (free_log_std) {
    free_log_std_ = register_parameter("free_log_std", torch::zeros({num_actions}));
  }
  vf_hidden_ = register_module("vf_hidden", torch::nn::ModuleList());
  int vf_prev = prev;
  if (!config.vf_share_layers) {
    vf_prev = obs_dim;
    for (int size : config.fcnet_hiddens) {
      vf_hidden_->push_back(NormcLinear(vf_prev, size, 1.0));
      vf_prev = size;
    }
  }
  value_ = register_module("value", NormcLinear(vf_prev, 1, 0.01));
}

torch::Tensor FullyConnectedNetworkImpl::Activate(const torch::Tensor& x) const {
  if (config_.fcnet_activation == "tanh") return torch::tanh(x);
  if (config_.fcnet_activation == "relu") return torch::relu(x);
  return x;
}

std::pair<torch::Tensor, torch::Tensor> FullyConnectedNetworkImpl::forward(
    const torch::Tensor& obs) {
  torch::Tensor features = obs;
  for (const auto& layer : *hidden_) {
    features = Activate(layer->as<torch::nn::Linear>()->forward(features));
  }
  torch::Tensor dist_inputs = logits_->forward(features);
  if (free_log_std_.defined()) {
    dist_inputs = torch::cat({dist_inputs, free_log_std_.expand_as(dist_inputs)}, -1);
  }
  torch::Tensor vf_features = config_.vf_share_layers ? features : obs;
  for (const auto& layer : *vf_hidden_) {
    vf_features = Activate(layer->as<torch::nn::Linear>()->forward(vf_features));
  }
  return {dist_inputs, value_->forward(vf_features).squeeze(-1)};
}

}  // namespace ray::rllib
