#pragma once
// RLlib's env_config: the key -> value map handed to an env's factory (catalog RL-031,
// RL-032). Values are numbers or strings (booleans and ints set in C++ are stored as
// numbers), or any other JSON value when read from a config (FromJson): booleans,
// lists, objects and null stay JSON and reach plugin envs as they were written.
// worker_index / vector_index say which copy of the env this is (RLlib's EnvContext),
// e.g. to shard data files or pick a variant.

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <variant>

#include <nlohmann/json.hpp>

#include "runtime/base/status.h"

namespace ray::rllib {

class EnvConfig {
 public:
  // A number or a string; converts implicitly from either so that
  // EnvConfig{{"g", 9.81}, {"length", 5}, {"mode", "nips"}} reads naturally.
  class Value {
   public:
    Value(double v) : v_(v) {}                        // NOLINT
    Value(int v) : v_(static_cast<double>(v)) {}      // NOLINT
    Value(int64_t v) : v_(static_cast<double>(v)) {}  // NOLINT
    Value(bool v) : v_(v ? 1.0 : 0.0) {}              // NOLINT
    Value(std::string v) : v_(std::move(v)) {}        // NOLINT
    Value(const char* v) : v_(std::string(v)) {}      // NOLINT
    // Any JSON value: numbers and strings become those; the rest stays JSON.
    static Value FromJson(const nlohmann::json& v);

    bool is_number() const { return v_.index() == 0; }
    bool is_string() const { return v_.index() == 1; }
    double number() const { return std::get<double>(v_); }
    const std::string& str() const { return std::get<std::string>(v_); }
    nlohmann::json ToJson() const;
    std::string ToString() const;

   private:
    explicit Value(nlohmann::json v) : v_(std::move(v)) {}
    std::variant<double, std::string, nlohmann::json> v_;
  };

  EnvConfig() = default;
  EnvConfig(std::initializer_list<std::pair<const std::string, Value>> values) : values_(values) {}
  // The keys of a JSON object (a config's "env_config"); InvalidArgument otherwise.
  static Result<EnvConfig> FromJson(const nlohmann::json& object);
  // The values as a JSON object (what a plugin env's EnvContext holds).
  nlohmann::json ToJson() const;

  void Set(const std::string& key, Value value) { values_.insert_or_assign(key, std::move(value)); }
  bool Has(const std::string& key) const { return values_.count(key) > 0; }
  const std::map<std::string, Value>& values() const { return values_; }

  // Typed reads: a missing key gives the default; a value of the wrong type (or a
  // non-integral number for GetInt, a number other than 0/1 for GetBool) gives
  // InvalidArgument naming the key.
  Result<double> GetDouble(const std::string& key, double default_value) const;
  Result<int64_t> GetInt(const std::string& key, int64_t default_value) const;
  Result<bool> GetBool(const std::string& key, bool default_value) const;
  Result<std::string> GetString(const std::string& key, std::string default_value) const;

  int worker_index() const { return worker_index_; }
  int vector_index() const { return vector_index_; }
  void set_worker_index(int index) { worker_index_ = index; }
  void set_vector_index(int index) { vector_index_ = index; }

 private:
  std::map<std::string, Value> values_;
  int worker_index_ = 0;  // 0 is the local (driver) worker, as in RLlib
  int vector_index_ = 0;  // index of the env within its VectorEnv
};

}  // namespace ray::rllib
