#include "algorithms/ars/ars_config.h"

namespace ray::rllib {

Result<ARSConfig> ARSConfig::FromJson(const std::string& json) {
  ARSConfig c;
  ConfigKeys keys = EvolutionConfigKeys(&c);
  keys.insert({{"num_rollouts", Int64Key(&c.num_rollouts)},
               {"rollouts_used", Int64Key(&c.rollouts_used)},
               {"sgd_stepsize", DoubleKey(&c.sgd_stepsize)},
               {"offset", DoubleKey(&c.offset)},
               {"policy_type", StringKey(&c.policy_type)}});
  RAY_RETURN_IF_ERROR(ApplyConfigJson(json, keys));
  RAY_RETURN_IF_ERROR(c.Validate());
  return c;
}

Status ARSConfig::Validate() const {
  RAY_RETURN_IF_ERROR(ValidateShared());
  auto bad = [](const std::string& m) { return Status::InvalidArgument(m); };
  if (num_rollouts <= 0) return bad("config key 'num_rollouts' must be > 0");
  if (rollouts_used <= 0) return bad("config key 'rollouts_used' must be > 0");
  if (!(sgd_stepsize > 0)) return bad("config key 'sgd_stepsize' must be > 0");
  if (policy_type != "MLPPolicy" && policy_type != "LinearPolicy") {
    return bad("config key 'policy_type' must be MLPPolicy or LinearPolicy, got '" + policy_type + "'");
  }
  return Status::Ok();
}

std::string ARSConfig::ToJson() const {
  nlohmann::json j = SharedJson();
  j["num_rollouts"] = num_rollouts;
  j["rollouts_used"] = rollouts_used;
  j["sgd_stepsize"] = sgd_stepsize;
  j["offset"] = offset;
  j["policy_type"] = policy_type;
  return j.dump();
}

}  // namespace ray::rllib
