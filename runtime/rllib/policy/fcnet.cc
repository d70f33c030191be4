#include "runtime/rllib/policy/fcnet.h"

namespace ray::rllib {

torch::nn::Linear NormcLinear(int in, int out, double stddev) {
  torch::nn::Linear layer(in, out);
  torch::NoGradGuard no_grad;
  auto w = torch::randn({out, in});
  w *= stddev / w.pow(2).sum(1, /*keepdim=*/true).sqrt();
  layer->weight.copy_(w);
  layer->bias.zero_();
  return layer;
}

int AddHiddenLayers(torch::nn::ModuleList& layers, int in, const std::vector<int>& hiddens) {
  for (int size : hiddens) {
    layers->push_back(NormcLinear(in, size, 1.0));
    in = size;
  }
  return in;
}

torch::Tensor RunHiddenLayers(const torch::nn::ModuleList& layers, torch::Tensor x,
                              const std::string& activation) {
  for (const auto& layer : *layers) {
    x = layer->as<torch::nn::Linear>()->forward(x);
    if (activation == "tanh") {
      x = torch::tanh(x);
    } else if (activation == "relu") {
      x = torch::relu(x);
    }
  }
  return x;
}

ActionHead::ActionHead(torch::nn::Module& owner, int in, int num_actions, bool discrete, bool free_log_std) {
  free_log_std = free_log_std && !discrete;
  dist_dim_ = discrete ? num_actions : 2 * num_actions;
  logits_ = owner.register_module("logits", NormcLinear(in, free_log_std ? num_actions : dist_dim_, 0.01));
  if (free_log_std) free_log_std_ = owner.register_parameter("free_log_std", torch::zeros({num_actions}));
}

torch::Tensor ActionHead::Apply(const torch::Tensor& features) {
  torch::Tensor out = logits_->forward(features);
  if (free_log_std_.defined()) out = torch::cat({out, free_log_std_.expand_as(out)}, -1);
  return out;
}

FullyConnectedNetwork::FullyConnectedNetwork(int obs_dim, int num_actions, bool discrete,
                                             const ModelConfig& config)
    : config_(config) {
  hidden_ = register_module("hidden", torch::nn::ModuleList());
  const int features = AddHiddenLayers(hidden_, obs_dim, config.fcnet_hiddens);
  head_ = ActionHead(*this, features, num_actions, discrete, config.free_log_std);
  vf_hidden_ = register_module("vf_hidden", torch::nn::ModuleList());
  const int vf_features = config.vf_share_layers
                              ? features
                              : AddHiddenLayers(vf_hidden_, obs_dim, config.fcnet_hiddens);
  value_ = register_module("value", NormcLinear(vf_features, 1, 0.01));
}

std::pair<torch::Tensor, torch::Tensor> FullyConnectedNetwork::forward(const torch::Tensor& obs) {
  const std::string& act = config_.fcnet_activation;
  torch::Tensor features = RunHiddenLayers(hidden_, obs, act);
  torch::Tensor vf_features = RunHiddenLayers(vf_hidden_, config_.vf_share_layers ? features : obs, act);
  return {head_.Apply(features), value_->forward(vf_features).squeeze(-1)};
}

ModelOutput FullyConnectedNetwork::Forward(const torch::Tensor& obs, const torch::Tensor&,
                                           const torch::Tensor&) {
  auto [dist_inputs, values] = forward(obs);
  return {dist_inputs, values, torch::Tensor()};
}

}  // namespace ray::rllib
