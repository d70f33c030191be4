#pragma once
// ray::RuntimeEnv: the runtime environment of a task or actor (Ray's runtime_env),
// given with .SetRuntimeEnv(env):
//   env_vars     variables set in the worker processes that run it, merged over the
//                job's (the task's win);
//   working_dir  a local directory, shipped to every node and the cwd of those workers
//                (replaces the job's);
//   plugins      local plugin files loaded in those workers beside the job's (replace
//                the job's).
// The job's own comes from `ray run/submit --runtime-env`. A task's own tasks inherit
// its environment. A working_dir or plugin is shipped once per process: changes made
// to it after the first task that used it are not seen. Keys the runtime does not
// support are refused when the task is submitted.
//
//   ray::RuntimeEnv env;
//   env.Set("env_vars", {{"MODE", "fast"}}).Set("working_dir", "data/run1");
//   env.SetList("plugins", {"/path/to/extra.so"});
//   ray::Task(F).SetRuntimeEnv(env).Remote();

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace ray {

class RuntimeEnv {
 public:
  // Sets field `name` ("env_vars") to a string mapping.
  RuntimeEnv& Set(const std::string& name, const std::map<std::string, std::string>& value) {
    fields_[name] = Object(value);
    return *this;
  }
  // Sets field `name` ("working_dir") to a string.
  RuntimeEnv& Set(const std::string& name, const std::string& value) {
    fields_[name] = Quote(value);
    return *this;
  }
  // Sets field `name` ("plugins") to a list of strings.
  RuntimeEnv& SetList(const std::string& name, const std::vector<std::string>& value) {
    std::string out = "[";
    for (const auto& v : value) out += (out.size() > 1 ? "," : "") + Quote(v);
    fields_[name] = out + "]";
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
