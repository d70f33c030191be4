#pragma once
// The LSTM wrapper of RLlib's ModelCatalog (model.use_lstm):
//
//   obs -> [Linear(h_i) + act] for h_i in fcnet_hiddens -> LSTM(lstm_cell_size)
//       -> logits (as the fully connected net's: Discrete, Box, free_log_std)
//       -> value
//
// The state is the LSTM's (h, c), 2 * lstm_cell_size floats per row, zeros at an
// episode's start. Forward unrolls each sequence from its own state and lengths may
// differ (they are packed, so no step is computed past a sequence's end); rows come
// back in the order they went in. Weights: normc for the hidden layers (1.0) and the
// heads (0.01), torch's default for the LSTM. Includes torch: learner-side only.

#include <torch/torch.h>

#include "runtime/rllib/common_config.h"
#include "runtime/rllib/policy/fcnet.h"
#include "runtime/rllib/policy/model.h"

namespace ray::rllib {

class LSTMNetwork : public ActorCriticModel {
 public:
  LSTMNetwork(int obs_dim, int num_actions, bool discrete, const ModelConfig& config);

  // seq_lens and state_in are required; InvalidArgument (std::invalid_argument) if a
  // shape does not fit.
  ModelOutput Forward(const torch::Tensor& obs, const torch::Tensor& state_in,
                      const torch::Tensor& seq_lens) override;
  int dist_dim() const override { return head_.dist_dim(); }
  int state_size() const override { return 2 * config_.lstm_cell_size; }

 private:
  // features [N, H] -> LSTM outputs [N, cell] and the final states [S, 2 * cell].
  std::pair<torch::Tensor, torch::Tensor> Unroll(const torch::Tensor& features,
                                                 const torch::Tensor& state_in,
                                                 const torch::Tensor& seq_lens);

  ModelConfig config_;
  torch::nn::ModuleList hidden_{nullptr};
  torch::nn::LSTM lstm_{nullptr};
  ActionHead head_;
  torch::nn::Linear value_{nullptr};
};

}  // namespace ray::rllib
