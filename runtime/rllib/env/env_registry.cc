#include "runtime/rllib/env/env_registry.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>

#include "runtime/rllib/env/time_limit.h"

namespace ray::rllib {

// One anchor per builtin env, defined next to its RAY_ENV registrar. Referencing
// them from here (a member every user of the registry links) makes the linker keep
// those object files when ray_rllib_env is linked statically, so their registrars
// run. The alternative, an OBJECT library, would push the burden onto every target
// that links the library; this keeps `target_link_libraries(x ray_rllib_env)` enough.
namespace internal {
void CartPoleEnvLinkAnchor();
void PendulumEnvLinkAnchor();
void MountainCarEnvLinkAnchor();
void MountainCarContinuousEnvLinkAnchor();
void AcrobotEnvLinkAnchor();
void DummyEnvLinkAnchor();
}  // namespace internal

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

void LinkBuiltinEnvs() {
  internal::CartPoleEnvLinkAnchor();
  internal::PendulumEnvLinkAnchor();
  internal::MountainCarEnvLinkAnchor();
  internal::MountainCarContinuousEnvLinkAnchor();
  internal::AcrobotEnvLinkAnchor();
  internal::DummyEnvLinkAnchor();
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
  LinkBuiltinEnvs();
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
  LinkBuiltinEnvs();
  Registry& registry = GetRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  std::vector<std::string> names;
  for (const auto& [name, entry] : registry.entries) names.push_back(name);
  return names;
}

Result<EnvSpec> GetEnvSpec(const std::string& name) {
  LinkBuiltinEnvs();
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
