#pragma once
// The model catalog (RLlib's ModelCatalog for the actor-critic policies): the model a
// config asks for. model.custom_model names a model registered by the model plugin
// (config key model_plugin, <ray/rllib/model_plugin.h>); else use_lstm gives the
// LSTM wrapper (lstm.h), otherwise the fully connected net (fcnet.h). Includes torch:
// learner-side only.

#include <ray/rllib/model.h>

#include <memory>
#include <string>

#include "runtime/rllib/common_config.h"

namespace ray::rllib {

// `discrete`: Discrete(num_actions) else Box(num_actions). A custom model is checked
// once on zeros: its dist_dim(), and the shapes of its outputs for one row (and its
// state, if it keeps one). Throws std::invalid_argument naming the model or the
// plugin: a plugin that cannot be loaded, an unknown name (listing the plugin's
// models), a factory that threw, or shapes that do not fit.
std::shared_ptr<ActorCriticModel> MakeModel(int obs_dim, int num_actions, bool discrete,
                                            const ModelConfig& config,
                                            const std::string& model_plugin);

}  // namespace ray::rllib
