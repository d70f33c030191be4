#pragma once
// The model a torch policy of PPO, PG, A2C, A3C, IMPALA or APPO learns with (RLlib's
// TorchModelV2 for the actor-critic algorithms): distribution inputs and a value per
// row, and, for a recurrent model, the state each sequence ends in. The built-in
// models implement it (the fully connected net; its LSTM wrapper with use_lstm), and
// so can a custom model from a model plugin (<ray/rllib/model_plugin.h>).
//
// Unlike the rest of the RLlib SDK this header includes libtorch's C++ API: a model
// is a torch::nn::Module, so a model plugin must be built against the same libtorch
// and C++ standard library as the runtime (Debian's libtorch-dev).

#include <torch/torch.h>

#include <memory>
#include <nlohmann/json.hpp>

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
  // sequence's state before its first row (zeros when its episode starts). A
  // stateless model ignores both (they may be undefined).
  virtual ModelOutput Forward(const torch::Tensor& obs, const torch::Tensor& state_in,
                              const torch::Tensor& seq_lens) = 0;
  // Floats of distribution inputs per row: Discrete(n) n logits; Box(d) 2d floats,
  // d means then d log standard deviations (a diagonal Gaussian).
  virtual int dist_dim() const = 0;
  // Floats of recurrent state per row; 0 for a stateless model.
  virtual int state_size() const { return 0; }
};

// What a custom model's factory is given (RLlib's ModelV2 constructor arguments).
struct ModelContext {
  int obs_dim = 0;        // floats per observation (the flattened observation space)
  int num_actions = 0;    // Discrete(n): n. Box(d): d.
  bool discrete = true;
  int num_outputs = 0;    // the dist_dim() the model must report and output
  nlohmann::json custom_options = nlohmann::json::object();  // model.custom_options
  nlohmann::json model_config = nlohmann::json::object();    // the whole "model" key
};

using ModelFactory = std::shared_ptr<ActorCriticModel> (*)(const ModelContext&);

}  // namespace ray::rllib
