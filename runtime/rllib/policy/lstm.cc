#include "runtime/rllib/policy/lstm.h"

#include <stdexcept>
#include <string>

#include "runtime/rllib/policy/fcnet.h"

namespace ray::rllib {

LSTMNetwork::LSTMNetwork(int obs_dim, int num_actions, bool discrete, const ModelConfig& config)
    : config_(config) {
  const int cell = config.lstm_cell_size;

  hidden_ = register_module("hidden", torch::nn::ModuleList());
  const int features = AddHiddenLayers(hidden_, obs_dim, config.fcnet_hiddens);
  lstm_ = register_module("lstm", torch::nn::LSTM(torch::nn::LSTMOptions(features, cell).batch_first(true)));
  head_ = ActionHead(*this, cell, num_actions, discrete, config.free_log_std);
  value_ = register_module("value", NormcLinear(cell, 1, 0.01));
}

std::pair<torch::Tensor, torch::Tensor> LSTMNetwork::Unroll(const torch::Tensor& features,
                                                            const torch::Tensor& state_in,
                                                            const torch::Tensor& seq_lens) {
  const int64_t cell = config_.lstm_cell_size;
  auto h0 = state_in.narrow(1, 0, cell).unsqueeze(0).contiguous();
  auto c0 = state_in.narrow(1, cell, cell).unsqueeze(0).contiguous();
  auto [out, hc] = UnrollSequences(lstm_, features, seq_lens, std::make_tuple(h0, c0));
  auto state_out = torch::cat({std::get<0>(hc).squeeze(0), std::get<1>(hc).squeeze(0)}, 1);
  return {out, state_out};
}

ModelOutput LSTMNetwork::Forward(const torch::Tensor& obs, const torch::Tensor& state_in,
                                 const torch::Tensor& seq_lens) {
  if (!state_in.defined() || !seq_lens.defined()) {
    throw std::invalid_argument("LSTM model: needs each sequence's state and length");
  }
  const int64_t s = seq_lens.size(0);
  if (state_in.dim() != 2 || state_in.size(0) != s || state_in.size(1) != state_size() ||
      seq_lens.sum().item<int64_t>() != obs.size(0) || seq_lens.min().item<int64_t>() < 1) {
    throw std::invalid_argument("LSTM model: " + std::to_string(s) + " sequences do not fit " +
                                std::to_string(obs.size(0)) + " rows and states of " +
                                std::to_string(state_size()) + " floats");
  }
  auto features = RunHiddenLayers(hidden_, obs, config_.fcnet_activation);
  auto [out, state_out] = Unroll(features, state_in, seq_lens);
  return {head_.Apply(out), value_->forward(out).squeeze(-1), state_out};
}

}  // namespace ray::rllib
