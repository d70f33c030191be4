#pragma once
// A runtime environment, Ray's runtime_env: what the worker processes that run a job's
// (or one task's, or one actor's) code are set up with. Supported keys:
//   env_vars     {"NAME": "value", ...}: set in the worker's environment
//   working_dir  a directory: shipped to every node, the worker's cwd
//   plugins      [".so", ...]: plugins loaded in the worker beside the job's (the
//                counterpart of Ray's py_modules)
// Any other key is refused (InvalidArgument naming it and where it came from).
//
// As the user writes it, working_dir and plugins are local paths; once shipped
// (runtime_env_ship.h) they are content hashes of what went to the
// GCS, and Canonical() is the key the raylet's worker pool keys workers by: workers
// with different runtime environments are never shared. Pure code; thread-compatible.

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/base/status.h"

namespace ray::core {

struct RuntimeEnv {
  std::map<std::string, std::string> env_vars;
  std::string working_dir;           // a local path, or (shipped) a content hash
  std::vector<std::string> plugins;  // likewise
  bool empty() const { return env_vars.empty() && working_dir.empty() && plugins.empty(); }
};

// Parses a JSON object; "" is the empty environment. `where` names the source for
// errors ("--runtime-env file env.yaml", "task F").
Result<RuntimeEnv> ParseRuntimeEnv(std::string_view json, const std::string& where);

// The JSON form, keys sorted; "" for the empty environment.
std::string Canonical(const RuntimeEnv& env);

// A task's environment within its parent's (or job's): the task's working_dir and
// plugins replace the parent's when given; env_vars are merged, the task's winning.
RuntimeEnv Merge(const RuntimeEnv& parent, const RuntimeEnv& task);

}  // namespace ray::core
