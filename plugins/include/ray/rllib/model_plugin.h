#pragma once
// Custom models in a library of their own (a model plugin): RLlib's
// ModelCatalog.register_custom_model for compiled models. Derive from
// ray::rllib::ActorCriticModel (<ray/rllib/model.h>), write a factory, and register
// it by name in the .cc:
//
//   #include <ray/rllib/model_plugin.h>
//
//   std::shared_ptr<ray::rllib::ActorCriticModel> MakeMyNet(const ray::rllib::ModelContext& ctx) {
//     return std::make_shared<MyNet>(ctx.obs_dim, ctx.num_outputs);
//   }
//   RAY_MODEL("my_net", MakeMyNet);
//
// and train with it: config {"model_plugin": "./my_models.so", "model": {"custom_model":
// "my_net", "custom_options": {...}}} (or `rllib train --model-plugin ./my_models.so`).
// The path must be readable on every node that runs the trainer or rollout workers.
//
// A factory that throws, or a model whose outputs do not have the shapes its context
// asks for, fails the policy's creation with an error naming the model. Include this
// header in one source file of the plugin.

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ray/rllib/model.h"

namespace ray::rllib {

// Hidden, whatever the plugin's visibility flags, so that each model plugin keeps its
// own registry.
#pragma GCC visibility push(hidden)
namespace model_plugin_internal {

inline std::map<std::string, ModelFactory>& Registry() {
  static std::map<std::string, ModelFactory> models;
  return models;
}

struct Registrar {
  Registrar(const char* name, ModelFactory make) { Registry()[name] = make; }
};

inline const ModelEntry* Entries(size_t* count) {
  static const std::vector<ModelEntry> entries = [] {
    std::vector<ModelEntry> out;
    for (const auto& [name, make] : Registry()) out.push_back({name.c_str(), make});
    return out;
  }();
  *count = entries.size();
  return entries.data();
}

}  // namespace model_plugin_internal
#pragma GCC visibility pop
}  // namespace ray::rllib

#define RAY_MODEL_CONCAT_INNER(a, b) a##b
#define RAY_MODEL_CONCAT(a, b) RAY_MODEL_CONCAT_INNER(a, b)
#define RAY_MODEL_EXPORT extern "C" __attribute__((visibility("default"), used))

// RAY_MODEL(name, factory): registers a custom model of this plugin under `name`.
#define RAY_MODEL(name, factory)                                                           \
  static const ::ray::rllib::model_plugin_internal::Registrar RAY_MODEL_CONCAT(            \
      ray_model_registrar_, __LINE__)(name, factory)

RAY_MODEL_EXPORT inline uint32_t ray_rllib_model_plugin_abi_version() {
  return RAY_MODEL_PLUGIN_ABI_VERSION;
}

// The plugin's models (valid while it stays loaded).
RAY_MODEL_EXPORT inline const ::ray::rllib::ModelEntry* ray_rllib_model_plugin_models(size_t* count) {
  return ::ray::rllib::model_plugin_internal::Entries(count);
}
