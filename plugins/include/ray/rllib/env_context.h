#pragma once
// What a plugin env's factory is given (RLlib's EnvContext): the env_config of the
// run, and which copy of the env this is (worker_index 0 is the local worker;
// vector_index the slot in its worker's vectorised env). Part of the env SDK.
//
// The typed reads throw std::invalid_argument naming the key when the value has
// another type; the plugin boundary turns that into the error `rllib train` shows.

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>

namespace ray::rllib {

class EnvContext {
 public:
  explicit EnvContext(nlohmann::json config = nlohmann::json::object(), int worker_index = 0,
                      int vector_index = 0)
      : config_(std::move(config)), worker_index_(worker_index), vector_index_(vector_index) {}

  const nlohmann::json& config() const { return config_; }
  bool Has(const std::string& key) const { return config_.contains(key); }
  int worker_index() const { return worker_index_; }
  int vector_index() const { return vector_index_; }

  // A missing key gives the default.
  double GetDouble(const std::string& key, double default_value) const {
    if (!Has(key)) return default_value;
    const nlohmann::json& v = config_.at(key);
    if (!v.is_number()) Wrong(key, "a number", v);
    return v.get<double>();
  }
  int64_t GetInt(const std::string& key, int64_t default_value) const {
    double v = GetDouble(key, static_cast<double>(default_value));
    if (std::trunc(v) != v) Wrong(key, "an integer", config_.at(key));
    return static_cast<int64_t>(v);
  }
  bool GetBool(const std::string& key, bool default_value) const {
    if (!Has(key)) return default_value;
    const nlohmann::json& v = config_.at(key);
    if (v.is_boolean()) return v.get<bool>();
    if (v.is_number() && (v.get<double>() == 0.0 || v.get<double>() == 1.0))
      return v.get<double>() == 1.0;
    Wrong(key, "a bool", v);
  }
  std::string GetString(const std::string& key, std::string default_value) const {
    if (!Has(key)) return default_value;
    const nlohmann::json& v = config_.at(key);
    if (!v.is_string()) Wrong(key, "a string", v);
    return v.get<std::string>();
  }

 private:
  [[noreturn]] static void Wrong(const std::string& key, const char* what,
                                 const nlohmann::json& v) {
    throw std::invalid_argument("env_config[\"" + key + "\"] must be " + what + ", got " +
                                v.dump());
  }

  nlohmann::json config_;
  int worker_index_;
  int vector_index_;
};

}  // namespace ray::rllib
