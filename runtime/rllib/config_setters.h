#pragma once
// Config setters beyond common_config.h's, for algorithms' own keys: a key whose only
// accepted value is its "off" value, a list of layer sizes, and a nested object of
// keys (SAC's Q_model, optimization). Header-only; no torch.

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/rllib/common_config.h"

namespace ray::rllib {

// A key whose only accepted value is `off` (RLlib's default or the only mode
// implemented): anything else is refused as not supported, saying why.
inline ConfigSetter OnlyValueKey(nlohmann::json off, std::string why) {
  return [off, why](const nlohmann::json& v, const std::string& key) {
    if (v != off) {
      return Status::InvalidArgument("config key '" + key + "' = " + v.dump() + " is not supported yet (" + why +
                                     "); only " + off.dump() + " is");
    }
    return Status::Ok();
  };
}

// A list of positive layer sizes (may be empty).
inline ConfigSetter HiddensKey(std::vector<int>* out) {
  return [out](const nlohmann::json& v, const std::string& key) {
    if (!v.is_array()) return Status::InvalidArgument("config key '" + key + "': expected a list of integers");
    std::vector<int> sizes;
    for (const nlohmann::json& e : v) {
      if (!e.is_number_integer() || e.get<int>() <= 0) {
        return Status::InvalidArgument("config key '" + key + "': expected a list of positive integers");
      }
      sizes.push_back(e.get<int>());
    }
    *out = std::move(sizes);
    return Status::Ok();
  };
}

// An object whose keys are read by `keys` (unknown ones refused as "key.sub").
inline ConfigSetter NestedKey(ConfigKeys keys) {
  return [keys = std::move(keys)](const nlohmann::json& v, const std::string& key) {
    if (!v.is_object()) return Status::InvalidArgument("config key '" + key + "': expected a JSON object");
    for (const auto& [sub, value] : v.items()) {
      auto it = keys.find(sub);
      if (it == keys.end()) return Status::InvalidArgument("unknown config key '" + key + "." + sub + "'");
      RAY_RETURN_IF_ERROR(it->second(value, key + "." + sub));
    }
    return Status::Ok();
  };
}

}  // namespace ray::rllib
