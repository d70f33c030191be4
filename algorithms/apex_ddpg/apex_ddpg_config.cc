#include "algorithms/apex_ddpg/apex_ddpg_config.h"

namespace ray::rllib {

Result<ApexDDPGConfig> ApexDDPGConfig::FromJson(const std::string& json) {
  ApexDDPGConfig c;
  ConfigKeys keys = DDPGConfig::Keys(&c);
  c.apex.AddKeys(&keys);
  RAY_RETURN_IF_ERROR(ApplyConfigJson(json, keys));
  RAY_RETURN_IF_ERROR(c.Validate());
  return c;
}

Status ApexDDPGConfig::Validate() const {
  RAY_RETURN_IF_ERROR(RefuseModelCatalog("APEX_DDPG", /*custom_too=*/true));
  RAY_RETURN_IF_ERROR(DDPGConfig::Validate());
  return apex.Validate(*this, replay);
}

std::string ApexDDPGConfig::ToJson() const {
  nlohmann::json j = nlohmann::json::parse(DDPGConfig::ToJson());
  j.update(apex.ToJson());
  return j.dump();
}

}  // namespace ray::rllib
