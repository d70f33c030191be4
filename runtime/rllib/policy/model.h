#pragma once
// ActorCriticModel: what a torch policy's model computes (RLlib's ModelV2 for the
// actor-critic algorithms): distribution inputs and a value per row, and, for a
// recurrent model, the state each sequence ends in. The built-in models are the fully
// connected net (fcnet.h) and the LSTM wrapper over it (lstm.h); MakeModel picks one
// from the config, as RLlib's ModelCatalog does. Includes torch: learner-side only.

#include <torch/torch.h>

#include <memory>

#include "runtime/rllib/common_config.h"

namespace ray::rllib {

struct ModelOutput {
  torch::Tensor dist_inputs;  // [N, dist_dim]
  torch::Tensor values;       // [N]
  torch::Tensor state_out;    // recurrent: [S, state_size], each sequence's last state
};

class ActorCriticModel : public torch::nn::Module {
 public:
  // obs [N, obs_dim]. A recurrent model reads the rows as S sequences laid back to
  // back: seq_lens [S] (int64, summing to N) and state_in [S, state_size], each
  // sequence's state before its first row. A stateless model ignores both (they may be
  // undefined).
  virtual ModelOutput Forward(const torch::Tensor& obs, const torch::Tensor& state_in,
                              const torch::Tensor& seq_lens) = 0;
  virtual int dist_dim() const = 0;
  // Floats of recurrent state per row; 0 for a stateless model.
  virtual int state_size() const { return 0; }
};

// The model the config asks for: use_lstm ? LSTM wrapper : fully connected net.
// `discrete`: Discrete(num_actions) else Box(num_actions).
std::shared_ptr<ActorCriticModel> MakeModel(int obs_dim, int num_actions, bool discrete,
                                            const ModelConfig& config);

}  // namespace ray::rllib
