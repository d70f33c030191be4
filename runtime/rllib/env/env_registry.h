#pragma once
// Envs by name: RLlib's register_env(name, creator) plus Gymnasium's registration
// record (max_episode_steps, reward_threshold).
//
// The builtin envs (CartPole, Pendulum, MountainCar, Acrobot, Dummy) live in the env
// plugin algorithms/envs/classic_control.so, which the registry loads the first time
// it is used. A user's envs come from a plugin library too (<ray/rllib/env_plugin.h>),
// registered here by LoadEnvPlugin (env_plugin_loader.h). Code linked into the
// program registers with RegisterEnv(), or at static-initialisation time with
//
//   RAY_ENV("MyEnv-v0", MakeMyEnv, /*max_episode_steps=*/500, /*reward_threshold=*/475.0);
//
// where the factory is `Result<std::unique_ptr<Env>>(const EnvConfig&)`.
//
// Thread-safe. Registration happens during static initialisation or later; lookups
// may run on any thread.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ray/rllib/env.h"
#include "runtime/base/status.h"
#include "runtime/rllib/env/env_config.h"

namespace ray::rllib {

// Builds the bare env (no TimeLimit); InvalidArgument for a bad env_config.
using EnvFactory = std::function<Result<std::unique_ptr<Env>>(const EnvConfig&)>;

// AlreadyExists if spec.id is taken; InvalidArgument for an empty id or factory.
Status RegisterEnv(EnvSpec spec, EnvFactory factory);

// Builds a registered env, as gym.make does: the factory's env, its spec set, wrapped
// in TimeLimit when the spec has max_episode_steps. NotFound (listing every
// registered name) for an unknown name; the factory's error for a bad config.
Result<std::unique_ptr<Env>> MakeEnv(const std::string& name, const EnvConfig& config = {});

// Every registered name, sorted.
std::vector<std::string> RegisteredEnvs();

// The registration record; NotFound for an unknown name.
Result<EnvSpec> GetEnvSpec(const std::string& name);

// Registers at static-initialisation time. A duplicate id is a programming error:
// the registrar prints it and aborts.
class EnvRegistrar {
 public:
  EnvRegistrar(EnvSpec spec, EnvFactory factory);
};

}  // namespace ray::rllib

#define RAY_ENV_CONCAT_INNER(a, b) a##b
#define RAY_ENV_CONCAT(a, b) RAY_ENV_CONCAT_INNER(a, b)

// RAY_ENV(id, factory, max_episode_steps, reward_threshold); pass std::nullopt for
// "none" (e.g. Pendulum-v1 has no reward threshold).
#define RAY_ENV(id, factory, max_episode_steps, reward_threshold)                       \
  static const ::ray::rllib::EnvRegistrar RAY_ENV_CONCAT(ray_env_registrar_, __LINE__)( \
      ::ray::rllib::EnvSpec{id, max_episode_steps, reward_threshold}, factory)
