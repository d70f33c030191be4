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

#include <cstdint>
#include <memory>
#include <utility>
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
  nlohmann::json model_config = nlohmann::json::object();    // every "model" key, defaults included
};

using ModelFactory = std::shared_ptr<ActorCriticModel> (*)(const ModelContext&);

// What a model plugin lists (<ray/rllib/model_plugin.h> exports them).
#define RAY_MODEL_PLUGIN_ABI_VERSION 1u
struct ModelEntry {
  const char* name;
  ModelFactory make;
};

// Runs a recurrent torch module (torch::nn::LSTM or torch::nn::GRU, batch_first) over
// `rows` [N, F] laid back to back as sequences (`seq_lens` [S], int64, each >= 1),
// each from its own initial hidden state (`hidden`: the module's, e.g. (h, c) of
// [1, S, H] each for an LSTM, h for a GRU). Returns each row's output [N, H], in row
// order, and each sequence's final hidden state. The sequences are packed, so no step
// is computed past a sequence's end.
template <typename Rnn, typename Hidden>
std::pair<torch::Tensor, Hidden> UnrollSequences(Rnn& rnn, const torch::Tensor& rows,
                                                 const torch::Tensor& seq_lens, Hidden hidden) {
  const int64_t s = seq_lens.size(0), n = rows.size(0);
  const int64_t longest = seq_lens.max().template item<int64_t>();
  if (longest == 1) {  // one step per sequence (acting): nothing to pad
    auto [out, final_hidden] = rnn->forward(rows.unsqueeze(1), hidden);
    return {out.squeeze(1), final_hidden};
  }
  // Row r, step t of sequence q, sits at q * longest + t of the padded batch.
  auto seq_of_row = torch::repeat_interleave(torch::arange(s), seq_lens);
  auto starts = seq_lens.cumsum(0) - seq_lens;
  auto pos = seq_of_row * longest + (torch::arange(n) - starts.index_select(0, seq_of_row));
  auto padded = torch::zeros({s * longest, rows.size(1)}, rows.options())
                    .index_copy(0, pos, rows)
                    .view({s, longest, rows.size(1)});
  namespace rnn_utils = torch::nn::utils::rnn;
  auto packed = rnn_utils::pack_padded_sequence(padded, seq_lens, /*batch_first=*/true,
                                                /*enforce_sorted=*/false);
  auto [packed_out, final_hidden] = rnn->forward_with_packed_input(packed, hidden);
  auto unpacked = std::get<0>(rnn_utils::pad_packed_sequence(packed_out, /*batch_first=*/true,
                                                             /*padding_value=*/0.0, longest));
  return {unpacked.reshape({s * longest, -1}).index_select(0, pos), final_hidden};
}

}  // namespace ray::rllib
