#pragma once
// Envs in a shared library of their own (an env plugin), loaded at run time by every
// process that steps envs: RLlib's register_env for compiled envs. The library
// registers its envs with RAY_ENV, as the builtins do, and names the ones it offers
// once with RAY_ENV_PLUGIN:
//
//   RAY_ENV("ReachTarget-v0", MakeReachTarget, 50, std::nullopt);
//   RAY_ENV_PLUGIN("ReachTarget-v0");
//
// `rllib train --env ReachTarget-v0 --env-plugin ./reach_target_env.so` (config key
// "env_plugin") then trains on it exactly as on a builtin env. The library must be
// built against these headers with the same compiler (Env is a C++ interface); the
// path must be readable on every node that runs rollout workers.

#include <string>

#include "runtime/base/status.h"
#include "runtime/rllib/env/env_registry.h"

#define RAY_ENV_PLUGIN_ABI_VERSION 1
#define RAY_ENV_PLUGIN_EXPORT extern "C" __attribute__((visibility("default"), used))

// The plugin's entry points: its ABI version, the names it offers, and a factory.
#define RAY_ENV_PLUGIN(...)                                                                   \
  RAY_ENV_PLUGIN_EXPORT int ray_env_plugin_abi_version() { return RAY_ENV_PLUGIN_ABI_VERSION; } \
  RAY_ENV_PLUGIN_EXPORT const char* const* ray_env_plugin_names() {                          \
    static const char* const names[] = {__VA_ARGS__, nullptr};                               \
    return names;                                                                             \
  }                                                                                           \
  RAY_ENV_PLUGIN_EXPORT ::ray::rllib::Env* ray_env_plugin_make(                               \
      const char* name, const ::ray::rllib::EnvConfig* config, std::string* error) {          \
    auto env = ::ray::rllib::MakeEnv(name, *config);                                          \
    if (!env.ok()) {                                                                          \
      *error = env.status().message();                                                        \
      return nullptr;                                                                         \
    }                                                                                         \
    return env->release();                                                                    \
  }

namespace ray::rllib {

// Registers the plugin's envs here (their time limits are applied inside the plugin).
// Loading a file again is a no-op. Errors name the file: not loadable, not an env
// plugin, another ABI version, or an env name that is already registered.
Status LoadEnvPlugin(const std::string& path);

}  // namespace ray::rllib
