#include "algorithms/es/evolution_config.h"

#include "runtime/rllib/config_setters.h"

namespace ray::rllib {
namespace {

using Json = nlohmann::json;

Status Bad(const std::string& m) { return Status::InvalidArgument(m); }

ConfigSetter JsonObjectKey(Json* out) {
  return [out](const Json& v, const std::string& key) {
    if (!v.is_object()) return Bad("config key '" + key + "': expected a JSON object, got " + v.dump());
    *out = v;
    return Status::Ok();
  };
}

}  // namespace

ConfigKeys EvolutionConfigKeys(EvolutionConfig* c) {
  return {
      {"noise_stdev", DoubleKey(&c->noise_stdev)},
      {"noise_size", Int64Key(&c->noise_size)},
      {"eval_prob", DoubleKey(&c->eval_prob)},
      {"report_length", IntKey(&c->report_length)},
      {"num_workers", IntKey(&c->num_workers)},
      {"num_cpus_per_worker", DoubleKey(&c->num_cpus_per_worker)},
      {"num_cpus_for_driver", DoubleKey(&c->num_cpus_for_driver)},
      {"num_gpus", OnlyValueKey(0, "ES and ARS run on CPUs")},
      {"observation_filter", StringKey(&c->observation_filter)},
      {"action_noise_std", DoubleKey(&c->action_noise_std)},
      {"seed", NullableInt64Key(&c->seed)},
      {"env_config", JsonObjectKey(&c->env_config)},
      {"env_plugin", StringKey(&c->env_plugin)},
      {"env", StringKey(&c->env)},
      {"model", NestedKey({{"fcnet_hiddens", HiddensKey(&c->fcnet_hiddens)},
                           {"fcnet_activation", StringKey(&c->fcnet_activation)}})},
  };
}

Status EvolutionConfig::ValidateShared() const {
  if (!(noise_stdev > 0)) return Bad("config key 'noise_stdev' must be > 0");
  if (noise_size <= 0) return Bad("config key 'noise_size' must be > 0");
  if (eval_prob < 0 || eval_prob >= 1) return Bad("config key 'eval_prob' must be in [0, 1)");
  if (report_length <= 0) return Bad("config key 'report_length' must be > 0");
  if (num_workers < 1) return Bad("config key 'num_workers' must be >= 1 (the rollouts run on worker actors)");
  if (num_cpus_per_worker < 0 || num_cpus_for_driver < 0) {
    return Bad("config keys 'num_cpus_per_worker' and 'num_cpus_for_driver' must be >= 0");
  }
  if (observation_filter != "NoFilter" && observation_filter != "MeanStdFilter") {
    return Bad("config key 'observation_filter' must be NoFilter or MeanStdFilter, got '" + observation_filter + "'");
  }
  if (action_noise_std < 0) return Bad("config key 'action_noise_std' must be >= 0");
  if (fcnet_activation != "tanh" && fcnet_activation != "relu" && fcnet_activation != "linear") {
    return Bad("config key 'model.fcnet_activation' must be tanh, relu or linear, got '" + fcnet_activation + "'");
  }
  return Status::Ok();
}

Json EvolutionConfig::SharedJson() const {
  return {{"noise_stdev", noise_stdev},
          {"noise_size", noise_size},
          {"eval_prob", eval_prob},
          {"report_length", report_length},
          {"num_workers", num_workers},
          {"num_cpus_per_worker", num_cpus_per_worker},
          {"num_cpus_for_driver", num_cpus_for_driver},
          {"num_gpus", 0},
          {"observation_filter", observation_filter},
          {"action_noise_std", action_noise_std},
          {"seed", seed ? Json(*seed) : Json(nullptr)},
          {"env_config", env_config},
          {"env_plugin", env_plugin},
          {"env", env},
          {"model", {{"fcnet_hiddens", fcnet_hiddens}, {"fcnet_activation", fcnet_activation}}}};
}

Result<ESConfig> ESConfig::FromJson(const std::string& json) {
  ESConfig c;
  ConfigKeys keys = EvolutionConfigKeys(&c);
  keys.insert({{"l2_coeff", DoubleKey(&c.l2_coeff)},
               {"episodes_per_batch", Int64Key(&c.episodes_per_batch)},
               {"train_batch_size", Int64Key(&c.train_batch_size)},
               {"return_proc_mode", OnlyValueKey("centered_rank", "RLlib's only mode")},
               {"stepsize", DoubleKey(&c.stepsize)}});
  RAY_RETURN_IF_ERROR(ApplyConfigJson(json, keys));
  RAY_RETURN_IF_ERROR(c.Validate());
  return c;
}

Status ESConfig::Validate() const {
  RAY_RETURN_IF_ERROR(ValidateShared());
  if (l2_coeff < 0) return Bad("config key 'l2_coeff' must be >= 0");
  if (episodes_per_batch <= 0) return Bad("config key 'episodes_per_batch' must be > 0");
  if (train_batch_size < 0) return Bad("config key 'train_batch_size' must be >= 0");
  if (!(stepsize > 0)) return Bad("config key 'stepsize' must be > 0");
  return Status::Ok();
}

std::string ESConfig::ToJson() const {
  Json j = SharedJson();
  j["l2_coeff"] = l2_coeff;
  j["episodes_per_batch"] = episodes_per_batch;
  j["train_batch_size"] = train_batch_size;
  j["return_proc_mode"] = return_proc_mode;
  j["stepsize"] = stepsize;
  return j.dump();
}

}  // namespace ray::rllib
