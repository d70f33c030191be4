#include "runtime/rllib/ppo/ppo_config.h"

#include <nlohmann/json.hpp>

#include <functional>
#include <map>

namespace ray::rllib {
namespace {

using Json = nlohmann::json;
using Setter = std::function<Status(const Json&, const std::string& key)>;

Status TypeError(const std::string& key, const char* want, const Json& got) {
  return Status::InvalidArgument("config key '" + key + "': expected " + want + ", got " +
                                 got.dump());
}

Setter Double(double* out) {
  return [out](const Json& v, const std::string& key) {
    if (!v.is_number()) return TypeError(key, "a number", v);
    *out = v.get<double>();
    return Status::Ok();
  };
}

template <typename Int>
Setter Integer(Int* out) {
  return [out](const Json& v, const std::string& key) {
    if (!v.is_number_integer()) return TypeError(key, "an integer", v);
    *out = v.get<Int>();
    return Status::Ok();
  };
}

Setter Bool(bool* out) {
  return [out](const Json& v, const std::string& key) {
    if (!v.is_boolean()) return TypeError(key, "true or false", v);
    *out = v.get<bool>();
    return Status::Ok();
  };
}

Setter String(std::string* out) {
  return [out](const Json& v, const std::string& key) {
    if (!v.is_string()) return TypeError(key, "a string", v);
    *out = v.get<std::string>();
    return Status::Ok();
  };
}

template <typename T>
Setter Nullable(std::optional<T>* out) {
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

// Accepts only null: keys RLlib has but this implementation does not support.
Setter OnlyNull() {
  return [](const Json& v, const std::string& key) {
    if (!v.is_null()) return Status::InvalidArgument("config key '" + key + "' is not supported");
    return Status::Ok();
  };
}

Setter IntList(std::vector<int>* out) {
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

Setter LrSchedule(std::vector<std::pair<int64_t, double>>* out) {
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

Status Apply(const Json& obj, const std::map<std::string, Setter>& setters,
             const std::string& prefix) {
  if (!obj.is_object()) {
    return Status::InvalidArgument("config" + (prefix.empty() ? "" : " key '" + prefix + "'") +
                                   ": expected a JSON object");
  }
  for (const auto& [key, value] : obj.items()) {
    const std::string full = prefix.empty() ? key : prefix + "." + key;
    auto it = setters.find(key);
    if (it == setters.end()) return Status::InvalidArgument("unknown config key '" + full + "'");
    RAY_RETURN_IF_ERROR(it->second(value, full));
  }
  return Status::Ok();
}

}  // namespace

Result<PPOConfig> PPOConfig::FromJson(const std::string& json) {
  return FromJson(json, PPOConfig{});
}

Result<PPOConfig> PPOConfig::FromJson(const std::string& json, const PPOConfig& base) {
  Json root = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) return Status::InvalidArgument("config is not valid JSON");
  PPOConfig c = base;
  ModelConfig& m = c.model;
  const std::map<std::string, Setter> model_setters = {
      {"fcnet_hiddens", IntList(&m.fcnet_hiddens)},
      {"fcnet_activation", String(&m.fcnet_activation)},
      {"vf_share_layers", Bool(&m.vf_share_layers)},
      {"free_log_std", Bool(&m.free_log_std)},
      {"custom_model", OnlyNull()},
      {"conv_filters", OnlyNull()},
  };
  const std::map<std::string, Setter> setters = {
      {"gamma", Double(&c.gamma)},
      {"lr", Double(&c.lr)},
      {"lr_schedule", LrSchedule(&c.lr_schedule)},
      {"train_batch_size", Integer(&c.train_batch_size)},
      {"sample_batch_size", Integer(&c.sample_batch_size)},
      {"rollout_fragment_length", Integer(&c.sample_batch_size)},
      {"num_workers", Integer(&c.num_workers)},
      {"num_envs_per_worker", Integer(&c.num_envs_per_worker)},
      {"num_cpus_per_worker", Double(&c.num_cpus_per_worker)},
      {"num_cpus_for_driver", Double(&c.num_cpus_for_driver)},
      {"num_gpus", Integer(&c.num_gpus)},
      {"batch_mode", String(&c.batch_mode)},
      {"env_plugin", String(&c.env_plugin)},
      {"observation_filter", String(&c.observation_filter)},
      {"horizon", Nullable(&c.horizon)},
      {"clip_actions", Bool(&c.clip_actions)},
      {"recreate_failed_workers", Bool(&c.recreate_failed_workers)},
      {"seed", Nullable(&c.seed)},
      {"env", String(&c.env)},
      {"metrics_smoothing_episodes", Integer(&c.metrics_smoothing_episodes)},
      {"model", [&](const Json& v, const std::string& key) { return Apply(v, model_setters, key); }},
      {"use_gae", Bool(&c.use_gae)},
      {"use_critic", Bool(&c.use_critic)},
      {"lambda", Double(&c.lambda)},
      {"kl_coeff", Double(&c.kl_coeff)},
      {"kl_target", Double(&c.kl_target)},
      {"sgd_minibatch_size", Integer(&c.sgd_minibatch_size)},
      {"num_sgd_iter", Integer(&c.num_sgd_iter)},
      {"shuffle_sequences", Bool(&c.shuffle_sequences)},
      {"vf_share_layers", Bool(&m.vf_share_layers)},
      {"vf_loss_coeff", Double(&c.vf_loss_coeff)},
      {"entropy_coeff", Double(&c.entropy_coeff)},
      {"entropy_coeff_schedule", OnlyNull()},
      {"clip_param", Double(&c.clip_param)},
      {"vf_clip_param", Double(&c.vf_clip_param)},
      {"grad_clip", Nullable(&c.grad_clip)},
      {"simple_optimizer", Bool(&c.simple_optimizer)},
  };
  RAY_RETURN_IF_ERROR(Apply(root, setters, ""));
  RAY_RETURN_IF_ERROR(c.Validate());
  return c;
}

std::string PPOConfig::ToJson() const {
  auto nullable = [](const auto& opt) { return opt ? Json(*opt) : Json(nullptr); };
  Json j = {
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
      {"observation_filter", observation_filter},
      {"horizon", nullable(horizon)},
      {"clip_actions", clip_actions},
      {"recreate_failed_workers", recreate_failed_workers},
      {"seed", nullable(seed)},
      {"env", env},
      {"metrics_smoothing_episodes", metrics_smoothing_episodes},
      {"model",
       {{"fcnet_hiddens", model.fcnet_hiddens},
        {"fcnet_activation", model.fcnet_activation},
        {"vf_share_layers", model.vf_share_layers},
        {"free_log_std", model.free_log_std}}},
      {"use_gae", use_gae},
      {"use_critic", use_critic},
      {"lambda", lambda},
      {"kl_coeff", kl_coeff},
      {"kl_target", kl_target},
      {"sgd_minibatch_size", sgd_minibatch_size},
      {"num_sgd_iter", num_sgd_iter},
      {"shuffle_sequences", shuffle_sequences},
      {"vf_loss_coeff", vf_loss_coeff},
      {"entropy_coeff", entropy_coeff},
      {"clip_param", clip_param},
      {"vf_clip_param", vf_clip_param},
      {"grad_clip", nullable(grad_clip)},
      {"simple_optimizer", simple_optimizer},
  };
  return j.dump();
}

Status PPOConfig::Validate() const {
  auto bad = [](const std::string& m) { return Status::InvalidArgument(m); };
  if (gamma < 0 || gamma > 1) return bad("config key 'gamma' must be in [0, 1]");
  if (lambda < 0 || lambda > 1) return bad("config key 'lambda' must be in [0, 1]");
  if (lr <= 0) return bad("config key 'lr' must be > 0");
  for (size_t i = 0; i < lr_schedule.size(); ++i) {
    if (lr_schedule[i].second < 0 || (i > 0 && lr_schedule[i].first <= lr_schedule[i - 1].first)) {
      return bad("config key 'lr_schedule' needs increasing timesteps and lr >= 0");
    }
  }
  if (train_batch_size <= 0) return bad("config key 'train_batch_size' must be > 0");
  if (sample_batch_size <= 0) return bad("config key 'sample_batch_size' must be > 0");
  if (sgd_minibatch_size <= 0) return bad("config key 'sgd_minibatch_size' must be > 0");
  if (sgd_minibatch_size > train_batch_size) {
    return bad("config key 'sgd_minibatch_size' (" + std::to_string(sgd_minibatch_size) +
               ") must be <= 'train_batch_size' (" + std::to_string(train_batch_size) + ")");
  }
  if (num_sgd_iter <= 0) return bad("config key 'num_sgd_iter' must be > 0");
  if (num_envs_per_worker <= 0) return bad("config key 'num_envs_per_worker' must be > 0");
  if (num_workers < 0) return bad("config key 'num_workers' must be >= 0");
  if (num_cpus_per_worker < 0 || num_cpus_for_driver < 0) {
    return bad("config keys 'num_cpus_per_worker' and 'num_cpus_for_driver' must be >= 0");
  }
  if (num_gpus != 0) return bad("config key 'num_gpus' must be 0 (CPU-only libtorch)");
  if (use_gae && !use_critic) return bad("config key 'use_gae' requires 'use_critic'");
  if (batch_mode != "truncate_episodes" && batch_mode != "complete_episodes") {
    return bad("config key 'batch_mode' must be truncate_episodes or complete_episodes");
  }
  if (observation_filter != "NoFilter") {
    return bad("config key 'observation_filter': only NoFilter is implemented");
  }
  if (kl_coeff < 0) return bad("config key 'kl_coeff' must be >= 0");
  if (kl_target <= 0) return bad("config key 'kl_target' must be > 0");
  if (clip_param <= 0) return bad("config key 'clip_param' must be > 0");
  if (vf_clip_param <= 0) return bad("config key 'vf_clip_param' must be > 0");
  if (grad_clip && *grad_clip <= 0) return bad("config key 'grad_clip' must be > 0 or null");
  if (metrics_smoothing_episodes <= 0) {
    return bad("config key 'metrics_smoothing_episodes' must be > 0");
  }
  const std::string& act = model.fcnet_activation;
  if (act != "tanh" && act != "relu" && act != "linear") {
    return bad("config key 'model.fcnet_activation' must be tanh, relu or linear, got '" + act +
               "'");
  }
  return Status::Ok();
}

double PPOConfig::LrAt(int64_t t) const {
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

}  // namespace ray::rllib
