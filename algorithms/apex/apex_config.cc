#include "algorithms/apex/apex_config.h"

namespace ray::rllib {

Result<ApexConfig> ApexConfig::FromJson(const std::string& json) {
  ApexConfig c;
  ConfigKeys keys = DQNConfig::Keys(&c);
  c.apex.AddKeys(&keys);
  RAY_RETURN_IF_ERROR(ApplyConfigJson(json, keys));
  RAY_RETURN_IF_ERROR(c.Validate());
  return c;
}

Status ApexConfig::Validate() const {
  RAY_RETURN_IF_ERROR(RefuseModelCatalog("APEX", /*custom_too=*/true));
  RAY_RETURN_IF_ERROR(DQNConfig::Validate());
  return apex.Validate(*this, replay);
}

std::string ApexConfig::ToJson() const {
  nlohmann::json j = nlohmann::json::parse(DQNConfig::ToJson());
  j.update(apex.ToJson());
  return j.dump();
}

}  // namespace ray::rllib
