#include "runtime/rllib/env/env_plugin.h"

#include <dlfcn.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <set>

namespace ray::rllib {

Status LoadEnvPlugin(const std::string& path) {
  static std::mutex mu;
  static std::set<std::string> loaded;
  std::error_code ec;
  std::string file = std::filesystem::canonical(path, ec).string();
  if (ec) return Status::NotFound("env plugin " + path + ": " + ec.message());
  std::lock_guard<std::mutex> lock(mu);
  if (loaded.count(file)) return Status::Ok();
  void* lib = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) return Status::InvalidArgument("env plugin " + path + ": " + ::dlerror());
  auto version = reinterpret_cast<int (*)()>(::dlsym(lib, "ray_env_plugin_abi_version"));
  auto names = reinterpret_cast<const char* const* (*)()>(::dlsym(lib, "ray_env_plugin_names"));
  using MakeFn = Env* (*)(const char*, const EnvConfig*, std::string*);
  auto make = reinterpret_cast<MakeFn>(::dlsym(lib, "ray_env_plugin_make"));
  if (!version || !names || !make) {
    ::dlclose(lib);
    return Status::InvalidArgument("env plugin " + path +
                                   ": not an env plugin (it has no RAY_ENV_PLUGIN(...) entry points)");
  }
  if (version() != RAY_ENV_PLUGIN_ABI_VERSION) {
    ::dlclose(lib);
    return Status::InvalidArgument("env plugin " + path + ": ABI version " +
                                   std::to_string(version()) + ", this ray speaks " +
                                   std::to_string(RAY_ENV_PLUGIN_ABI_VERSION));
  }
  // The library stays loaded for the life of the process: its envs are in use.
  loaded.insert(file);
  for (const char* const* n = names(); *n; ++n) {
    std::string name = *n;
    auto factory = [make, name](const EnvConfig& config) -> Result<std::unique_ptr<Env>> {
      std::string error;
      Env* env = make(name.c_str(), &config, &error);
      if (!env) return Status::InvalidArgument(error);
      return std::unique_ptr<Env>(env);
    };
    Status st = RegisterEnv(EnvSpec{name, std::nullopt, std::nullopt}, factory);
    if (!st.ok()) return Status::InvalidArgument("env plugin " + path + ": " + st.message());
  }
  return Status::Ok();
}

}  // namespace ray::rllib
