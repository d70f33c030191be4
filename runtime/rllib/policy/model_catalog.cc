#include <ray/rllib/model.h>

#include <boost/dll/shared_library.hpp>

#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/rllib/policy/fcnet.h"
#include "runtime/rllib/policy/lstm.h"
#include "runtime/rllib/policy/model.h"

namespace ray::rllib {
namespace {

using Models = std::map<std::string, ModelFactory>;

// The models of the plugin at `path`, loaded once per process (libraries stay loaded:
// their models outlive any one policy).
const Models& PluginModels(const std::string& path) {
  static std::mutex mu;
  static std::map<std::string, std::pair<boost::dll::shared_library, Models>> loaded;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = loaded.find(path); it != loaded.end()) return it->second.second;
  auto fail = [&](const std::string& why) -> const Models& {
    throw std::invalid_argument("model plugin " + path + ": " + why);
  };
  boost::dll::shared_library lib;
  try {
    lib.load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    return fail(std::string("cannot be loaded: ") + e.what());
  }
  if (!lib.has("ray_rllib_model_plugin_abi_version") || !lib.has("ray_rllib_model_plugin_models")) {
    return fail("not a model plugin (no RAY_MODEL, <ray/rllib/model_plugin.h>)");
  }
  const uint32_t version = lib.get<uint32_t()>("ray_rllib_model_plugin_abi_version")();
  if (version != RAY_MODEL_PLUGIN_ABI_VERSION) {
    return fail("built for model plugin ABI " + std::to_string(version) + ", this runtime has " +
                std::to_string(RAY_MODEL_PLUGIN_ABI_VERSION));
  }
  size_t count = 0;
  const ModelEntry* entries = lib.get<const ModelEntry*(size_t*)>("ray_rllib_model_plugin_models")(&count);
  Models models;
  for (size_t i = 0; i < count; ++i) models[entries[i].name] = entries[i].make;
  return loaded.emplace(path, std::make_pair(std::move(lib), std::move(models))).first->second.second;
}

std::string Names(const Models& models) {
  std::string out;
  for (const auto& [name, make] : models) out += (out.empty() ? "" : ", ") + name;
  return out.empty() ? "none" : out;
}

// Runs the model once on zeros and checks what comes out against the context.
void CheckShapes(ActorCriticModel& model, const ModelContext& context, const std::string& name) {
  auto bad = [&](const std::string& why) {
    throw std::invalid_argument("custom model '" + name + "': " + why);
  };
  if (model.dist_dim() != context.num_outputs) {
    bad("dist_dim() is " + std::to_string(model.dist_dim()) + ", the action space needs " +
        std::to_string(context.num_outputs));
  }
  const int state = model.state_size();
  if (state < 0) bad("state_size() is negative");
  torch::NoGradGuard no_grad;
  ModelOutput out;
  try {
    out = model.Forward(torch::zeros({1, context.obs_dim}),
                        state > 0 ? torch::zeros({1, state}) : torch::Tensor(),
                        state > 0 ? torch::ones({1}, torch::kInt64) : torch::Tensor());
  } catch (const std::exception& e) {
    bad(std::string("Forward threw: ") + e.what());
  }
  auto shape = [](const torch::Tensor& t) {
    return t.defined() ? c10::str(t.sizes()) : std::string("undefined");
  };
  if (!out.dist_inputs.defined() || out.dist_inputs.sizes() != torch::IntArrayRef{1, context.num_outputs}) {
    bad("Forward gave dist_inputs of shape " + shape(out.dist_inputs) + " for one row, expected [1, " +
        std::to_string(context.num_outputs) + "]");
  }
  if (!out.values.defined() || out.values.sizes() != torch::IntArrayRef{1}) {
    bad("Forward gave values of shape " + shape(out.values) + " for one row, expected [1]");
  }
  if (state > 0 && (!out.state_out.defined() || out.state_out.sizes() != torch::IntArrayRef{1, state})) {
    bad("Forward gave state_out of shape " + shape(out.state_out) + " for one sequence, expected [1, " +
        std::to_string(state) + "]");
  }
}

std::shared_ptr<ActorCriticModel> MakeCustomModel(const ModelContext& context, const ModelConfig& config,
                                                  const std::string& model_plugin) {
  const Models& models = PluginModels(model_plugin);
  auto it = models.find(config.custom_model);
  if (it == models.end()) {
    throw std::invalid_argument("custom model '" + config.custom_model + "' is not registered by " +
                                model_plugin + " (it registers: " + Names(models) + ")");
  }
  std::shared_ptr<ActorCriticModel> model;
  try {
    model = it->second(context);
  } catch (const std::exception& e) {
    throw std::invalid_argument("custom model '" + config.custom_model + "': its factory threw: " + e.what());
  }
  if (!model) throw std::invalid_argument("custom model '" + config.custom_model + "': its factory returned null");
  CheckShapes(*model, context, config.custom_model);
  return model;
}

}  // namespace

std::shared_ptr<ActorCriticModel> MakeModel(int obs_dim, int num_actions, bool discrete,
                                            const ModelConfig& config,
                                            const std::string& model_plugin) {
  if (!config.custom_model.empty()) {
    ModelContext context;
    context.obs_dim = obs_dim;
    context.num_actions = num_actions;
    context.discrete = discrete;
    context.num_outputs = discrete ? num_actions : 2 * num_actions;
    context.custom_options = config.custom_options;
    context.model_config = config.ToJson();
    return MakeCustomModel(context, config, model_plugin);
  }
  if (config.use_lstm) return std::make_shared<LSTMNetwork>(obs_dim, num_actions, discrete, config);
  return std::make_shared<FullyConnectedNetwork>(obs_dim, num_actions, discrete, config);
}

}  // namespace ray::rllib
