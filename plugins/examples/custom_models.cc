// Custom models in a model plugin of their own (RLlib's register_custom_model): a
// residual MLP and a recurrent GRU model, each registered by name.
//
//   rllib train --run PPO --env CartPole-v1 --model-plugin build/plugins/examples/custom_models.so
//               --config '{"model": {"custom_model": "residual_mlp", "custom_options": {"width": 64}}}'
//
//   residual_mlp   obs -> Linear(width) -> tanh -> `blocks` x (x + tanh(Linear(x))) -> logits, value
//                  custom_options: "width" (default 64), "blocks" (default 2)
//   gru            obs -> Linear(width) -> tanh -> GRU(width) -> logits, value; its state is
//                  the GRU's hidden vector, so it can learn RepeatAfterMe-v0
//                  custom_options: "width" (default 32)
//
// A model plugin includes libtorch (<ray/rllib/model.h>): build it against the same
// libtorch as the runtime (in this tree: link ray_torch).

#include <ray/rllib/model_plugin.h>

#include <stdexcept>
#include <string>

namespace {

using namespace ray::rllib;

int Option(const ModelContext& context, const char* key, int default_value) {
  const nlohmann::json& o = context.custom_options;
  if (!o.contains(key)) return default_value;
  if (!o[key].is_number_integer() || o[key].get<int>() <= 0) {
    throw std::invalid_argument(std::string("custom_options[\"") + key + "\"] must be a positive integer");
  }
  return o[key].get<int>();
}

class ResidualMLP : public ActorCriticModel {
 public:
  ResidualMLP(int obs_dim, int num_outputs, int width, int blocks) : num_outputs_(num_outputs) {
    input_ = register_module("input", torch::nn::Linear(obs_dim, width));
    blocks_ = register_module("blocks", torch::nn::ModuleList());
    for (int i = 0; i < blocks; ++i) blocks_->push_back(torch::nn::Linear(width, width));
    logits_ = register_module("logits", torch::nn::Linear(width, num_outputs));
    value_ = register_module("value", torch::nn::Linear(width, 1));
    torch::NoGradGuard no_grad;
    logits_->weight.mul_(0.01);  // a near-uniform first policy
  }
  ModelOutput Forward(const torch::Tensor& obs, const torch::Tensor&, const torch::Tensor&) override {
    torch::Tensor x = torch::tanh(input_->forward(obs));
    for (const auto& block : *blocks_) x = x + torch::tanh(block->as<torch::nn::Linear>()->forward(x));
    return {logits_->forward(x), value_->forward(x).squeeze(-1), torch::Tensor()};
  }
  int dist_dim() const override { return num_outputs_; }

 private:
  int num_outputs_;
  torch::nn::Linear input_{nullptr}, logits_{nullptr}, value_{nullptr};
  torch::nn::ModuleList blocks_{nullptr};
};

class GRUModel : public ActorCriticModel {
 public:
  GRUModel(int obs_dim, int num_outputs, int width) : num_outputs_(num_outputs), width_(width) {
    input_ = register_module("input", torch::nn::Linear(obs_dim, width));
    gru_ = register_module("gru", torch::nn::GRU(torch::nn::GRUOptions(width, width).batch_first(true)));
    logits_ = register_module("logits", torch::nn::Linear(width, num_outputs));
    value_ = register_module("value", torch::nn::Linear(width, 1));
  }
  ModelOutput Forward(const torch::Tensor& obs, const torch::Tensor& state_in,
                      const torch::Tensor& seq_lens) override {
    auto x = torch::tanh(input_->forward(obs));
    auto [features, h] = UnrollSequences(gru_, x, seq_lens, state_in.unsqueeze(0).contiguous());
    return {logits_->forward(features), value_->forward(features).squeeze(-1), h.squeeze(0)};
  }
  int dist_dim() const override { return num_outputs_; }
  int state_size() const override { return width_; }

 private:
  int num_outputs_, width_;
  torch::nn::Linear input_{nullptr}, logits_{nullptr}, value_{nullptr};
  torch::nn::GRU gru_{nullptr};
};

std::shared_ptr<ActorCriticModel> MakeResidualMLP(const ModelContext& context) {
  return std::make_shared<ResidualMLP>(context.obs_dim, context.num_outputs, Option(context, "width", 64),
                                       Option(context, "blocks", 2));
}

std::shared_ptr<ActorCriticModel> MakeGRU(const ModelContext& context) {
  return std::make_shared<GRUModel>(context.obs_dim, context.num_outputs, Option(context, "width", 32));
}

}  // namespace

RAY_MODEL("residual_mlp", MakeResidualMLP);
RAY_MODEL("gru", MakeGRU);
