#include "runtime/rllib/env/env_registry.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>

#include "runtime/rllib/env/env_plugin_loader.h"
#include "runtime/rllib/env/time_limit.h"

namespace ray::rllib {

namespace {

struct Entry {
  EnvSpec spec;
  EnvFactory factory;
};

struct Registry {
  std::mutex mu;
  std::map<std::string, Entry> entries;
};

// Function-local static: safe to use from registrars in any translation unit,
// whatever the static-initialisation order.
Registry& GetRegistry() {
  static Registry* registry = new Registry();
  return *registry;
}

// The builtin envs are the env plugin classic_control.so (algorithms/envs/), loaded
// once, the first time the registry is used: from beside the library or program this
// code is linked into (../envs/ of an installed algorithm plugin, ../lib/ray/envs/ of
// an installed program, ../algorithms/envs/ of one in the build tree), else from this
// build's tree. A failure is printed once; lookups then list what is registered.
void LoadBuiltinEnvs() {
  static std::once_flag once;
  std::call_once(once, [] {
    namespace fs = std::filesystem;
    std::vector<fs::path> candidates;
    Dl_info info;
    if (::dladdr(reinterpret_cast<void*>(&LoadBuiltinEnvs), &info) != 0 && info.dli_fname != nullptr) {
      std::error_code ec;
      const fs::path self = fs::canonical(info.dli_fname, ec);
      if (!ec) {
        for (const char* rel : {"../envs", "../lib/ray/envs", "../lib64/ray/envs", "../algorithms/envs"}) {
          candidates.push_back(self.parent_path() / rel / "classic_control.so");
        }
      }
    }
    candidates.push_back(RAY_BUILD_ENVS_PLUGIN);
    for (const fs::path& file : candidates) {
      std::error_code ec;
      if (!fs::exists(file, ec)) continue;
      Status st = internal::LoadEnvPluginFile(file.string());
      if (!st.ok()) std::fprintf(stderr, "builtin envs: %s\n", st.ToString().c_str());
      return;
    }
    std::fprintf(stderr, "builtin envs: classic_control.so not found (looked beside %s and in %s)\n",
                 candidates.size() > 1 ? candidates.front().parent_path().c_str() : "?", RAY_BUILD_ENVS_PLUGIN);
  });
}

std::string JoinNames(const std::map<std::string, Entry>& entries) {
  std::string names;
  for (const auto& [name, entry] : entries) {
    if (!names.empty()) names += ", ";
    names += name;
  }
  return names;
}

}  // namespace

Status RegisterEnv(EnvSpec spec, EnvFactory factory) {
  if (spec.id.empty()) return Status::InvalidArgument("env id is empty");
  if (!factory) return Status::InvalidArgument("env '" + spec.id + "' has no factory");
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  const std::string id = spec.id;
  auto [it, inserted] =
      registry.entries.try_emplace(id, Entry{std::move(spec), std::move(factory)});
  if (!inserted) return Status::AlreadyExists("env '" + id + "' is already registered");
  return Status::Ok();
}

Result<std::unique_ptr<Env>> MakeEnv(const std::string& name, const EnvConfig& config) {
  LoadBuiltinEnvs();
  Entry entry;
  {
    Registry& registry = GetRegistry();
    std::lock_guard<std::mutex> lock(registry.mu);
    auto it = registry.entries.find(name);
    if (it == registry.entries.end()) {
      return Status::NotFound("no env named '" + name +
                              "'; registered envs: " + JoinNames(registry.entries));
    }
    entry = it->second;
  }
  // The factory runs unlocked: it may itself look up other envs.
  auto made = entry.factory(config);
  if (!made.ok()) return made.status();
  std::unique_ptr<Env> env = std::move(made).value();
  env->set_spec(entry.spec);
  if (entry.spec.max_episode_steps.has_value()) {
    env = std::make_unique<TimeLimit>(std::move(env), *entry.spec.max_episode_steps);
    env->set_spec(entry.spec);
  }
  return env;
}

std::vector<std::string> RegisteredEnvs() {
  LoadBuiltinEnvs();
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  std::vector<std::string> names;
  for (const auto& [name, entry] : registry.entries) names.push_back(name);
  return names;
}

Result<EnvSpec> GetEnvSpec(const std::string& name) {
  LoadBuiltinEnvs();
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  auto it = registry.entries.find(name);
  if (it == registry.entries.end()) {
    return Status::NotFound("no env named '" + name +
                            "'; registered envs: " + JoinNames(registry.entries));
  }
  return it->second.spec;
}

EnvRegistrar::EnvRegistrar(EnvSpec spec, EnvFactory factory) {
  const std::string id = spec.id;
  Status status = RegisterEnv(std::move(spec), std::move(factory));
  if (!status.ok()) {
    std::fprintf(stderr, "RAY_ENV(\"%s\"): %s\n", id.c_str(), status.ToString().c_str());
    std::abort();
  }
}

}  // namespace ray::rllib
