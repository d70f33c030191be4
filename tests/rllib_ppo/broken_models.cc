// A model plugin whose models break the contract, for custom_model_test: outputs of
// the wrong width, values of the wrong shape, a recurrent model with no state_out.
#include <ray/rllib/model_plugin.h>

namespace {

using namespace ray::rllib;

class Broken : public ActorCriticModel {
 public:
  Broken(int obs_dim, int width, int64_t value_width, int state)
      : width_(width), value_width_(value_width), state_(state) {
    layer_ = register_module("layer", torch::nn::Linear(obs_dim, width));
  }
  ModelOutput Forward(const torch::Tensor& obs, const torch::Tensor&, const torch::Tensor&) override {
    auto values = value_width_ == 1 ? torch::zeros({obs.size(0)}) : torch::zeros({obs.size(0), value_width_});
    return {layer_->forward(obs), values, torch::Tensor()};
  }
  int dist_dim() const override { return width_; }
  int state_size() const override { return state_; }

 private:
  int width_;
  int64_t value_width_;
  int state_;
  torch::nn::Linear layer_{nullptr};
};

RAY_MODEL("wrong_dist_dim", [](const ModelContext& c) -> std::shared_ptr<ActorCriticModel> {
  return std::make_shared<Broken>(c.obs_dim, c.num_outputs + 1, 1, 0);
});
RAY_MODEL("wrong_values", [](const ModelContext& c) -> std::shared_ptr<ActorCriticModel> {
  return std::make_shared<Broken>(c.obs_dim, c.num_outputs, 3, 0);
});
RAY_MODEL("no_state_out", [](const ModelContext& c) -> std::shared_ptr<ActorCriticModel> {
  return std::make_shared<Broken>(c.obs_dim, c.num_outputs, 1, 4);
});

}  // namespace
