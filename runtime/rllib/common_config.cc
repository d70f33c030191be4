#include "runtime/rllib/common_config.h"

#include <algorithm>

#include "runtime/rllib/config_setters.h"

namespace ray::rllib {
namespace {

using Json = nlohmann::json;

Status TypeError(const std::string& key, const char* want, const Json& got) {
  return Status::InvalidArgument("config key '" + key + "': expected " + want + ", got " +
                                 got.dump());
}

template <typename Int>
ConfigSetter Integer(Int* out) {
  return [out](const Json& v, const std::string& key) {
    if (!v.is_number_integer()) return TypeError(key, "an integer", v);
    *out = v.get<Int>();
    return Status::Ok();
  };
}

template <typename T>
ConfigSetter Nullable(std::optional<T>* out) {
  return [out](const Json& v, const std::string& key) {
    if (v.is_null()) {
      out->reset();
      return Status::Ok();
    }
    if (!v.is_number()) return TypeError(key, "a number or null", v);
    if (std::is_integral_v<T> && !v.is_number_integer()) {
      return TypeError(key, "an integer or null", v);
    }
    *out = v.get<T>();
    return Status::Ok();
  };
}

ConfigSetter IntList(std::vector<int>* out) {
  return [out](const Json& v, const std::string& key) {
    if (!v.is_array()) return TypeError(key, "a list of integers", v);
    std::vector<int> sizes;
    for (const Json& e : v) {
      if (!e.is_number_integer() || e.get<int>() <= 0) {
        return TypeError(key, "a list of positive integers", v);
      }
      sizes.push_back(e.get<int>());
    }
    *out = std::move(sizes);
    return Status::Ok();
  };
}

ConfigSetter LrSchedule(std::vector<std::pair<int64_t, double>>* out) {
  return [out](const Json& v, const std::string& key) {
    out->clear();
    if (v.is_null()) return Status::Ok();
    if (!v.is_array()) return TypeError(key, "a list of [timestep, lr] pairs or null", v);
    for (const Json& e : v) {
      if (!e.is_array() || e.size() != 2 || !e[0].is_number_integer() || !e[1].is_number()) {
        return TypeError(key, "a list of [timestep, lr] pairs or null", v);
      }
      out->emplace_back(e[0].get<int64_t>(), e[1].get<double>());
    }
    return Status::Ok();
  };
}

// A string, or null for none (empty).
ConfigSetter NullableStringKey(std::string* out) {
  return [out](const Json& v, const std::string& key) {
    if (!v.is_null() && !v.is_string()) return TypeError(key, "a string or null", v);
    *out = v.is_null() ? "" : v.get<std::string>();
    return Status::Ok();
  };
}

ConfigSetter ObjectKey(Json* out) {
  return [out](const Json& v, const std::string& key) {
    if (!v.is_object()) return TypeError(key, "a JSON object", v);
    *out = v;
    return Status::Ok();
  };
}

ConfigSetter ClipRewardsKey(RewardClip* out) {
  return [out](const Json& v, const std::string& key) {
    *out = RewardClip{};
    if (v.is_null() || (v.is_boolean() && !v.get<bool>())) return Status::Ok();
    if (v.is_boolean()) {
      out->sign = true;
      return Status::Ok();
    }
    if (!v.is_number() || !(v.get<double>() > 0)) return TypeError(key, "null, true, false or a number > 0", v);
    out->limit = v.get<double>();
    return Status::Ok();
  };
}

// RLlib's callbacks: a plugin library's path. RLlib's dict of functions is accepted
// only when every function is null (its default).
ConfigSetter CallbacksKey(std::string* out) {
  return [out](const Json& v, const std::string& key) {
    if (v.is_string() || v.is_null()) {
      *out = v.is_null() ? "" : v.get<std::string>();
      return Status::Ok();
    }
    if (v.is_object() && std::all_of(v.begin(), v.end(), [](const Json& f) { return f.is_null(); })) {
      out->clear();
      return Status::Ok();
    }
    return TypeError(key, "the path of a callbacks plugin (<ray/rllib/callbacks.h>) or null", v);
  };
}

Status Apply(const Json& obj, const ConfigKeys& keys, const std::string& prefix) {
  if (!obj.is_object()) {
    return Status::InvalidArgument("config" + (prefix.empty() ? "" : " key '" + prefix + "'") +
                                   ": expected a JSON object");
  }
  for (const auto& [key, value] : obj.items()) {
    const std::string full = prefix.empty() ? key : prefix + "." + key;
    auto it = keys.find(key);
    if (it == keys.end()) return Status::InvalidArgument("unknown config key '" + full + "'");
    RAY_RETURN_IF_ERROR(it->second(value, full));
  }
  return Status::Ok();
}

}  // namespace

ConfigSetter DoubleKey(double* out) {
  return [out](const Json& v, const std::string& key) {
    if (!v.is_number()) return TypeError(key, "a number", v);
    *out = v.get<double>();
    return Status::Ok();
  };
}
ConfigSetter IntKey(int* out) { return Integer(out); }
ConfigSetter Int64Key(int64_t* out) { return Integer(out); }
ConfigSetter BoolKey(bool* out) {
  return [out](const Json& v, const std::string& key) {
    if (!v.is_boolean()) return TypeError(key, "true or false", v);
    *out = v.get<bool>();
    return Status::Ok();
  };
}
ConfigSetter StringKey(std::string* out) {
  return [out](const Json& v, const std::string& key) {
    if (!v.is_string()) return TypeError(key, "a string", v);
    *out = v.get<std::string>();
    return Status::Ok();
  };
}
ConfigSetter NullableDoubleKey(std::optional<double>* out) { return Nullable(out); }
ConfigSetter NullableInt64Key(std::optional<int64_t>* out) { return Nullable(out); }
ConfigSetter OnlyNullKey() {
  return [](const Json& v, const std::string& key) {
    if (!v.is_null()) return Status::InvalidArgument("config key '" + key + "' is not supported");
    return Status::Ok();
  };
}

ConfigKeys CommonConfigKeys(CommonConfig* c) {
  ModelConfig* m = &c->model;
  auto model_keys = std::make_shared<ConfigKeys>(ConfigKeys{
      {"fcnet_hiddens", IntList(&m->fcnet_hiddens)},
      {"fcnet_activation", StringKey(&m->fcnet_activation)},
      {"vf_share_layers", BoolKey(&m->vf_share_layers)},
      {"free_log_std", BoolKey(&m->free_log_std)},
      {"use_lstm", BoolKey(&m->use_lstm)},
      {"max_seq_len", IntKey(&m->max_seq_len)},
      {"lstm_cell_size", IntKey(&m->lstm_cell_size)},
      {"lstm_use_prev_action_reward",
       OnlyValueKey(false, "the LSTM sees observations only")},
      {"custom_model", NullableStringKey(&m->custom_model)},
      {"custom_options", ObjectKey(&m->custom_options)},
      {"conv_filters", OnlyNullKey()},
  });
  return {
      {"gamma", DoubleKey(&c->gamma)},
      {"lr", DoubleKey(&c->lr)},
      {"lr_schedule", LrSchedule(&c->lr_schedule)},
      {"train_batch_size", Int64Key(&c->train_batch_size)},
      {"sample_batch_size", Int64Key(&c->sample_batch_size)},
      {"rollout_fragment_length", Int64Key(&c->sample_batch_size)},
      {"num_workers", IntKey(&c->num_workers)},
      {"num_envs_per_worker", IntKey(&c->num_envs_per_worker)},
      {"num_cpus_per_worker", DoubleKey(&c->num_cpus_per_worker)},
      {"num_cpus_for_driver", DoubleKey(&c->num_cpus_for_driver)},
      {"num_gpus", IntKey(&c->num_gpus)},
      {"batch_mode", StringKey(&c->batch_mode)},
      {"env_plugin", StringKey(&c->env_plugin)},
      {"model_plugin", StringKey(&c->model_plugin)},
      {"observation_filter", StringKey(&c->observation_filter)},
      {"synchronize_filters", BoolKey(&c->synchronize_filters)},
      {"sample_async", BoolKey(&c->sample_async)},
      {"horizon", NullableInt64Key(&c->horizon)},
      {"soft_horizon", BoolKey(&c->soft_horizon)},
      {"env_config", ObjectKey(&c->env_config)},
      {"clip_rewards", ClipRewardsKey(&c->clip_rewards)},
      {"callbacks", CallbacksKey(&c->callbacks)},
      {"evaluation_interval", NullableInt64Key(&c->evaluation_interval)},
      {"evaluation_num_episodes", Int64Key(&c->evaluation_num_episodes)},
      {"evaluation_config", ObjectKey(&c->evaluation_config)},
      {"ignore_worker_failures", BoolKey(&c->ignore_worker_failures)},
      {"clip_actions", BoolKey(&c->clip_actions)},
      {"recreate_failed_workers", BoolKey(&c->recreate_failed_workers)},
      {"seed", NullableInt64Key(&c->seed)},
      {"env", StringKey(&c->env)},
      {"metrics_smoothing_episodes", IntKey(&c->metrics_smoothing_episodes)},
      {"grad_clip", NullableDoubleKey(&c->grad_clip)},
      {"min_iter_time_s", DoubleKey(&c->min_iter_time_s)},
      {"timesteps_per_iteration", Int64Key(&c->timesteps_per_iteration)},
      {"model", [model_keys](const Json& v, const std::string& key) {
         return Apply(v, *model_keys, key);
       }},
      {"vf_share_layers", BoolKey(&m->vf_share_layers)},
  };
}

Status ApplyConfigJson(const std::string& text, const ConfigKeys& keys) {
  Json root = Json::parse(text.empty() ? "{}" : text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return Status::InvalidArgument("config is not valid JSON");
  return Apply(root, keys, "");
}

Status CommonConfig::ValidateCommon() const {
  auto bad = [](const std::string& m) { return Status::InvalidArgument(m); };
  if (gamma < 0 || gamma > 1) return bad("config key 'gamma' must be in [0, 1]");
  if (lr <= 0) return bad("config key 'lr' must be > 0");
  for (size_t i = 0; i < lr_schedule.size(); ++i) {
    if (lr_schedule[i].second < 0 || (i > 0 && lr_schedule[i].first <= lr_schedule[i - 1].first)) {
      return bad("config key 'lr_schedule' needs increasing timesteps and lr >= 0");
    }
  }
  if (train_batch_size <= 0) return bad("config key 'train_batch_size' must be > 0");
  if (sample_batch_size <= 0) return bad("config key 'sample_batch_size' must be > 0");
  if (num_envs_per_worker <= 0) return bad("config key 'num_envs_per_worker' must be > 0");
  if (num_workers < 0) return bad("config key 'num_workers' must be >= 0");
  if (sample_async && num_workers == 0) {
    return bad("config key 'sample_async': true needs num_workers >= 1 (the trainer's own worker samples when "
               "asked)");
  }
  if (num_cpus_per_worker < 0 || num_cpus_for_driver < 0) {
    return bad("config keys 'num_cpus_per_worker' and 'num_cpus_for_driver' must be >= 0");
  }
  if (num_gpus != 0) return bad("config key 'num_gpus' must be 0 (CPU-only libtorch)");
  if (batch_mode != "truncate_episodes" && batch_mode != "complete_episodes") {
    return bad("config key 'batch_mode' must be truncate_episodes or complete_episodes");
  }
  if (observation_filter != "NoFilter" && observation_filter != "MeanStdFilter") {
    return bad("config key 'observation_filter' must be NoFilter or MeanStdFilter, got '" +
               observation_filter + "'");
  }
  if (horizon && *horizon <= 0) return bad("config key 'horizon' must be > 0 or null");
  if (soft_horizon && !horizon) return bad("config key 'soft_horizon' needs a 'horizon'");
  if (evaluation_interval && *evaluation_interval <= 0) {
    return bad("config key 'evaluation_interval' must be > 0 or null");
  }
  if (evaluation_num_episodes <= 0) return bad("config key 'evaluation_num_episodes' must be > 0");
  if (min_iter_time_s < 0 || timesteps_per_iteration < 0) {
    return bad("config keys 'min_iter_time_s' and 'timesteps_per_iteration' must be >= 0");
  }
  if (grad_clip && *grad_clip <= 0) return bad("config key 'grad_clip' must be > 0 or null");
  if (metrics_smoothing_episodes <= 0) {
    return bad("config key 'metrics_smoothing_episodes' must be > 0");
  }
  const std::string& act = model.fcnet_activation;
  if (act != "tanh" && act != "relu" && act != "linear") {
    return bad("config key 'model.fcnet_activation' must be tanh, relu or linear, got '" + act +
               "'");
  }
  if (model.max_seq_len <= 0) return bad("config key 'model.max_seq_len' must be > 0");
  if (model.lstm_cell_size <= 0) return bad("config key 'model.lstm_cell_size' must be > 0");
  if (!model.custom_model.empty() && model.use_lstm) {
    return bad("config key 'model.use_lstm' cannot wrap a custom_model: make the custom model "
               "recurrent itself (state_size() > 0)");
  }
  if (!model_plugin.empty() && model.custom_model.empty()) {
    return bad("config key 'model_plugin' is set, but 'model.custom_model' names no model of it");
  }
  if (!model.custom_model.empty() && model_plugin.empty()) {
    return bad("config key 'model.custom_model' ('" + model.custom_model +
               "') needs 'model_plugin', the library that registers it");
  }
  return Status::Ok();
}

Json ModelConfig::ToJson() const {
  return {{"fcnet_hiddens", fcnet_hiddens},
          {"fcnet_activation", fcnet_activation},
          {"vf_share_layers", vf_share_layers},
          {"free_log_std", free_log_std},
          {"use_lstm", use_lstm},
          {"max_seq_len", max_seq_len},
          {"lstm_cell_size", lstm_cell_size},
          {"custom_model", custom_model.empty() ? Json() : Json(custom_model)},
          {"custom_options", custom_options}};
}

Status CommonConfig::RefuseModelCatalog(const std::string& algorithm, bool custom_too) const {
  if (model.use_lstm) {
    return Status::InvalidArgument("config key 'model.use_lstm' is not supported by " + algorithm +
                                   " (recurrent models train with PPO, PG, A2C and A3C)");
  }
  if (custom_too && !model.custom_model.empty()) {
    return Status::InvalidArgument("config key 'model.custom_model' is not supported by " + algorithm +
                                   " (custom models train with PPO, PG, A2C, A3C, IMPALA and APPO)");
  }
  return Status::Ok();
}

double RewardClip::Apply(double r) const {
  if (sign) return r > 0 ? 1.0 : (r < 0 ? -1.0 : 0.0);
  if (limit) return std::clamp(r, -*limit, *limit);
  return r;
}

nlohmann::json RewardClip::ToJson() const {
  if (sign) return true;
  if (limit) return *limit;
  return nullptr;
}

double CommonConfig::LrAt(int64_t t) const {
  if (lr_schedule.empty()) return lr;
  if (t <= lr_schedule.front().first) return lr_schedule.front().second;
  for (size_t i = 1; i < lr_schedule.size(); ++i) {
    const auto& [t1, v1] = lr_schedule[i];
    if (t < t1) {
      const auto& [t0, v0] = lr_schedule[i - 1];
      const double alpha = static_cast<double>(t - t0) / static_cast<double>(t1 - t0);
      return v0 + alpha * (v1 - v0);
    }
  }
  return lr_schedule.back().second;
}

nlohmann::json CommonConfig::CommonJson() const {
  auto nullable = [](const auto& opt) { return opt ? Json(*opt) : Json(nullptr); };
  return {
      {"gamma", gamma},
      {"lr", lr},
      {"lr_schedule", lr_schedule.empty() ? Json(nullptr) : Json(lr_schedule)},
      {"train_batch_size", train_batch_size},
      {"sample_batch_size", sample_batch_size},
      {"num_workers", num_workers},
      {"num_envs_per_worker", num_envs_per_worker},
      {"num_cpus_per_worker", num_cpus_per_worker},
      {"num_cpus_for_driver", num_cpus_for_driver},
      {"num_gpus", num_gpus},
      {"batch_mode", batch_mode},
      {"env_plugin", env_plugin},
      {"model_plugin", model_plugin},
      {"observation_filter", observation_filter},
      {"synchronize_filters", synchronize_filters},
      {"sample_async", sample_async},
      {"horizon", nullable(horizon)},
      {"soft_horizon", soft_horizon},
      {"env_config", env_config},
      {"clip_rewards", clip_rewards.ToJson()},
      {"callbacks", callbacks.empty() ? Json(nullptr) : Json(callbacks)},
      {"evaluation_interval", nullable(evaluation_interval)},
      {"evaluation_num_episodes", evaluation_num_episodes},
      {"evaluation_config", evaluation_config},
      {"ignore_worker_failures", ignore_worker_failures},
      {"clip_actions", clip_actions},
      {"recreate_failed_workers", recreate_failed_workers},
      {"seed", nullable(seed)},
      {"env", env},
      {"metrics_smoothing_episodes", metrics_smoothing_episodes},
      {"grad_clip", nullable(grad_clip)},
      {"min_iter_time_s", min_iter_time_s},
      {"timesteps_per_iteration", timesteps_per_iteration},
      {"model", model.ToJson()},
  };
}

}  // namespace ray::rllib
