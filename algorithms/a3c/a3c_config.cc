#include "algorithms/a3c/a3c_config.h"

namespace ray::rllib {

Result<A3CConfig> A3CConfig::FromJson(const std::string& json) {
  A3CConfig c;
  ConfigKeys keys = CommonConfigKeys(&c);
  ConfigKeys optimizer_keys = {{"grads_per_step", IntKey(&c.grads_per_step)}};
  keys["lambda"] = DoubleKey(&c.lambda);
  keys["vf_loss_coeff"] = DoubleKey(&c.vf_loss_coeff);
  keys["entropy_coeff"] = DoubleKey(&c.entropy_coeff);
  keys["use_pytorch"] = BoolKey(&c.use_pytorch);
  keys["optimizer"] = [optimizer_keys](const nlohmann::json& v, const std::string& key) {
    if (!v.is_object())
      return Status::InvalidArgument("config key '" + key + "': expected a JSON object");
    for (const auto& [k, value] : v.items()) {
      auto it = optimizer_keys.find(k);
      if (it == optimizer_keys.end()) {
        return Status::InvalidArgument("unknown config key '" + key + "." + k +
                                       "' (AsyncGradientsOptimizer takes grads_per_step)");
      }
      RAY_RETURN_IF_ERROR(it->second(value, key + "." + k));
    }
    return Status::Ok();
  };
  RAY_RETURN_IF_ERROR(ApplyConfigJson(json, keys));
  RAY_RETURN_IF_ERROR(c.Validate());
  return c;
}

std::string A3CConfig::ToJson() const {
  nlohmann::json j = nlohmann::json::parse(A2CConfig::ToJson());
  j.erase("microbatch_size");
  j.update({{"use_pytorch", use_pytorch}, {"optimizer", {{"grads_per_step", grads_per_step}}}});
  return j.dump();
}

Status A3CConfig::Validate() const {
  if (num_workers < 1) {
    return Status::InvalidArgument(
        "config key 'num_workers' must be >= 1: A3C's AsyncGradientsOptimizer requires at least 1 "
        "remote workers");
  }
  RAY_RETURN_IF_ERROR(A2CConfig::Validate());
  if (grads_per_step < 1)
    return Status::InvalidArgument("config key 'optimizer.grads_per_step' must be >= 1");
  if (entropy_coeff < 0) return Status::InvalidArgument("config key 'entropy_coeff' must be >= 0");
  return Status::Ok();
}

}  // namespace ray::rllib
