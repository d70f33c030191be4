#include "runtime/api/runtime_env.h"

#include <nlohmann/json.hpp>

namespace ray::core {

using nlohmann::json;

Result<RuntimeEnv> ParseRuntimeEnv(std::string_view text, const std::string& where) {
  RuntimeEnv env;
  if (text.empty()) return env;
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument(where + ": runtime_env is not valid JSON");
  if (j.is_null()) return env;
  if (!j.is_object()) return Status::InvalidArgument(where + ": runtime_env is not an object");
  auto bad = [&](const std::string& what) {
    return Status::InvalidArgument(where + ": runtime_env " + what);
  };
  for (const auto& [key, value] : j.items()) {
    if (key == "env_vars") {
      if (!value.is_object()) return bad("env_vars is not a mapping of names to strings");
      for (const auto& [name, v] : value.items()) {
        if (name.empty() || name.find('=') != std::string::npos) {
          return bad("env_vars has an invalid variable name '" + name + "'");
        }
        if (!v.is_string()) return bad("env_vars['" + name + "'] is not a string");
        env.env_vars[name] = v.get<std::string>();
      }
    } else if (key == "working_dir") {
      if (!value.is_string() || value.get<std::string>().empty()) {
        return bad("working_dir is not a non-empty string");
      }
      env.working_dir = value.get<std::string>();
    } else if (key == "plugins") {
      if (!value.is_array()) return bad("plugins is not a list of plugin files");
      for (const auto& p : value) {
        if (!p.is_string() || p.get<std::string>().empty()) {
          return bad("plugins has an entry that is not a file name");
        }
        env.plugins.push_back(p.get<std::string>());
      }
    } else {
      return bad("key '" + key + "' is not supported (supported: env_vars, working_dir, plugins)");
    }
  }
  return env;
}

std::string Canonical(const RuntimeEnv& env) {
  if (env.empty()) return "";
  json j = json::object();
  if (!env.env_vars.empty()) j["env_vars"] = env.env_vars;
  if (!env.working_dir.empty()) j["working_dir"] = env.working_dir;
  if (!env.plugins.empty()) j["plugins"] = env.plugins;
  return j.dump();
}

RuntimeEnv Merge(const RuntimeEnv& parent, const RuntimeEnv& task) {
  RuntimeEnv out = parent;
  for (const auto& [k, v] : task.env_vars) out.env_vars[k] = v;
  if (!task.working_dir.empty()) out.working_dir = task.working_dir;
  if (!task.plugins.empty()) out.plugins = task.plugins;
  return out;
}

}  // namespace ray::core
