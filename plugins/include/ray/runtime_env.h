#pragma once
// ray::RuntimeEnv: the runtime environment of a task or actor (Ray's runtime_env),
// given with .SetRuntimeEnv(env). Per task or actor, env_vars may be set: variables
// set in the worker processes that run it, merged over the job's (the task's win).
// working_dir and plugins are set for the whole job (`ray run/submit --runtime-env`).
// A task's own tasks inherit its environment. Keys the runtime does not support are
// refused when the task is submitted.
//
//   ray::RuntimeEnv env;
//   env.Set("env_vars", {{"MODE", "fast"}});
//   ray::Task(F).SetRuntimeEnv(env).Remote();

#include <cstdio>
#include <map>
#include <string>

namespace ray {

class RuntimeEnv {
 public:
  // Sets field `name` (Ray's runtime_env keys; "env_vars" here) to a string mapping.
  RuntimeEnv& Set(const std::string& name, const std::map<std::string, std::string>& value) {
    fields_[name] = Object(value);
    return *this;
  }
  // The JSON object the runtime reads.
  std::string ToJson() const {
    if (fields_.empty()) return "";
    std::string out = "{";
    for (const auto& [k, v] : fields_) out += (out.size() > 1 ? "," : "") + Quote(k) + ":" + v;
    return out + "}";
  }

 private:
  static std::string Quote(const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\u%04x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
    return out + "\"";
  }
  static std::string Object(const std::map<std::string, std::string>& m) {
    std::string out = "{";
    for (const auto& [k, v] : m) out += (out.size() > 1 ? "," : "") + Quote(k) + ":" + Quote(v);
    return out + "}";
  }
  std::map<std::string, std::string> fields_;  // name -> JSON value
};

}  // namespace ray
