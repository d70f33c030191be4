#include "runtime/rllib/env/env_config.h"

#include <cmath>
#include <sstream>

namespace ray::rllib {

EnvConfig::Value EnvConfig::Value::FromJson(const nlohmann::json& v) {
  if (v.is_number()) return Value(v.get<double>());
  if (v.is_string()) return Value(v.get<std::string>());
  return Value(v);
}

nlohmann::json EnvConfig::Value::ToJson() const {
  if (is_number()) return number();
  if (is_string()) return str();
  return std::get<nlohmann::json>(v_);
}

Result<EnvConfig> EnvConfig::FromJson(const nlohmann::json& object) {
  if (!object.is_object()) return Status::InvalidArgument("env_config must be a JSON object, got " + object.dump());
  EnvConfig out;
  for (const auto& [key, value] : object.items()) out.Set(key, Value::FromJson(value));
  return out;
}

nlohmann::json EnvConfig::ToJson() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [key, value] : values_) j[key] = value.ToJson();
  return j;
}

std::string EnvConfig::Value::ToString() const {
  if (!is_number() && !is_string()) return std::get<nlohmann::json>(v_).dump();
  if (!is_number()) return "\"" + str() + "\"";
  std::ostringstream out;
  out << number();
  return out.str();
}

Result<double> EnvConfig::GetDouble(const std::string& key, double default_value) const {
  auto it = values_.find(key);
  if (it == values_.end()) return default_value;
  if (!it->second.is_number()) {
    return Status::InvalidArgument("env_config[\"" + key + "\"] must be a number, got " +
                                   it->second.ToString());
  }
  return it->second.number();
}

Result<int64_t> EnvConfig::GetInt(const std::string& key, int64_t default_value) const {
  auto value = GetDouble(key, static_cast<double>(default_value));
  if (!value.ok()) return value.status();
  if (std::trunc(*value) != *value) {
    return Status::InvalidArgument("env_config[\"" + key + "\"] must be an integer, got " +
                                   values_.at(key).ToString());
  }
  return static_cast<int64_t>(*value);
}

Result<bool> EnvConfig::GetBool(const std::string& key, bool default_value) const {
  if (auto it = values_.find(key); it != values_.end() && it->second.ToJson().is_boolean()) {
    return it->second.ToJson().get<bool>();
  }
  auto value = GetDouble(key, default_value ? 1.0 : 0.0);
  if (!value.ok()) return value.status();
  if (*value != 0.0 && *value != 1.0) {
    return Status::InvalidArgument("env_config[\"" + key + "\"] must be a bool, got " +
                                   values_.at(key).ToString());
  }
  return *value == 1.0;
}

Result<std::string> EnvConfig::GetString(const std::string& key, std::string default_value) const {
  auto it = values_.find(key);
  if (it == values_.end()) return default_value;
  if (!it->second.is_string()) {
    return Status::InvalidArgument("env_config[\"" + key + "\"] must be a string, got " +
                                   it->second.ToString());
  }
  return it->second.str();
}

}  // namespace ray::rllib
