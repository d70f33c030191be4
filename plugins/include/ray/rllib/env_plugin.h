#pragma once
// Envs in a library of their own (an env plugin): RLlib's register_env for compiled
// envs. Implement ray::rllib::Env (<ray/rllib/env.h>), write a factory, and register
// it in the .cc:
//
//   #include <ray/rllib/env_plugin.h>
//
//   std::unique_ptr<ray::rllib::Env> MakeReachTarget(const ray::rllib::EnvContext& ctx) {
//     return std::make_unique<ReachTarget>(ctx.GetDouble("speed", 0.1));
//   }
//   RAY_ENV("ReachTarget-v0", MakeReachTarget, /*max_episode_steps=*/50,
//           /*reward_threshold=*/std::nullopt);
//
// Build it like any plugin, in or out of the ray tree (find_package(Ray), then
// ray_add_plugin(reach_target_env reach_target_env.cc)), and train on it with
// `rllib train --env ReachTarget-v0 --env-plugin ./reach_target_env.so` (config key
// "env_plugin"); the path must be readable on every node that runs rollout workers.
//
// This header defines the library's C entry points (<ray/rllib/env_abi.h>): the
// runtime never sees the Env objects, only bytes and C structs. An exception thrown
// by a factory or an env is caught here and becomes the error the runtime reports,
// naming the env; it does not take the worker down. Include it in the plugin only
// (not in code linked into the runtime).

#include <algorithm>
#include <cstring>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ray/rllib/env.h"
#include "ray/rllib/env_abi.h"
#include "ray/rllib/env_context.h"

namespace ray::rllib {

// Builds an env from its context; throws (std::invalid_argument) on a bad env_config.
using EnvMaker = std::function<std::unique_ptr<Env>(const EnvContext&)>;

// Hidden, whatever the plugin's visibility flags: a static of an exported inline
// function would be a GNU unique symbol, shared by every env plugin in the process.
#pragma GCC visibility push(hidden)
namespace env_plugin_internal {

struct Entry {
  EnvSpec spec;
  EnvMaker make;
};

// In registration order. Filled during static initialisation, read-only afterwards.
inline std::vector<Entry>& Entries() {
  static std::vector<Entry> entries;
  return entries;
}

struct Registrar {
  Registrar(EnvSpec spec, EnvMaker make) {
    Entries().push_back({std::move(spec), std::move(make)});
  }
};

inline std::string& LastError() {
  thread_local std::string error;
  return error;
}

// Runs `f`, turning any exception into a non-zero return and LastError().
template <typename F>
int Guard(F&& f) noexcept {
  try {
    f();
    return 0;
  } catch (const std::exception& e) {
    LastError() = e.what();
  } catch (...) {
    LastError() = "unknown exception";
  }
  return 1;
}

// The C record of a space, pointing into the space itself and into the arrays of parts
// and keys kept here (their storage never moves once added).
class SpaceRecords {
 public:
  RayEnvSpace Describe(const Space& space) {
    RayEnvSpace out{};
    if (space.is_discrete()) {
      out.kind = RAY_ENV_SPACE_DISCRETE;
      out.n = space.discrete().n();
    } else if (space.is_box()) {
      const Box& box = space.box();
      out.kind = RAY_ENV_SPACE_BOX;
      out.low = box.low().data();
      out.high = box.high().data();
      out.size = box.size();
      out.shape = box.shape().data();
      out.ndim = static_cast<int64_t>(box.shape().size());
    } else {
      std::vector<RayEnvSpace> parts;
      std::vector<const char*> keys;
      if (space.is_tuple()) {
        out.kind = RAY_ENV_SPACE_TUPLE;
        for (const Space& part : space.tuple().spaces()) parts.push_back(Describe(part));
      } else {
        out.kind = RAY_ENV_SPACE_DICT;
        for (const auto& [key, part] : space.dict().spaces()) {
          parts.push_back(Describe(part));
          keys.push_back(key.c_str());
        }
        out.keys = keys_.emplace_back(std::move(keys)).data();
      }
      out.num_parts = static_cast<int64_t>(parts.size());
      out.parts = parts_.emplace_back(std::move(parts)).data();
    }
    return out;
  }

 private:
  std::deque<std::vector<RayEnvSpace>> parts_;
  std::deque<std::vector<const char*>> keys_;
};

// One env handed out by create(): the env, the records of its spaces, and an action
// reused across steps (so a Box action costs no allocation once warmed up).
struct Handle {
  std::unique_ptr<Env> env;
  SpaceRecords spaces;
  RayEnvSpace observation{}, action_space{};
  bool described = false;
  Action action;
};

inline void CopyObs(const char* what, const Observation& obs, float* out, size_t out_size) {
  if (obs.size() != out_size) {
    throw std::length_error(std::string(what) + " returned " + std::to_string(obs.size()) +
                            " observation values, its observation space has " +
                            std::to_string(out_size));
  }
  std::copy(obs.begin(), obs.end(), out);
}

inline size_t List(const RayEnvInfo** infos) {
  static const std::vector<RayEnvInfo> records = [] {
    std::vector<RayEnvInfo> r;
    for (const Entry& e : Entries()) {
      r.push_back({e.spec.id.c_str(), e.spec.max_episode_steps.value_or(0),
                   static_cast<uint8_t>(e.spec.reward_threshold.has_value()),
                   e.spec.reward_threshold.value_or(0.0)});
    }
    return r;
  }();
  *infos = records.data();
  return records.size();
}

inline int Create(const char* id, const char* config_json, size_t config_len, int32_t worker_index,
                  int32_t vector_index, void** env_out) {
  return Guard([&] {
    const Entry* entry = nullptr;
    for (const Entry& e : Entries()) {
      if (e.spec.id == id) entry = &e;
    }
    if (!entry)
      throw std::invalid_argument(std::string("no env named '") + id + "' in this plugin");
    nlohmann::json config = config_len == 0
                                ? nlohmann::json::object()
                                : nlohmann::json::parse(config_json, config_json + config_len);
    auto handle = std::make_unique<Handle>();
    handle->env = entry->make(EnvContext(std::move(config), worker_index, vector_index));
    if (!handle->env) throw std::invalid_argument("the factory returned no env");
    *env_out = handle.release();
  });
}

inline int Spaces(void* env, RayEnvSpace* observation, RayEnvSpace* action) {
  return Guard([&] {
    Handle& h = *static_cast<Handle*>(env);
    if (!h.described) {  // once: the records stay valid while the env lives
      h.observation = h.spaces.Describe(h.env->observation_space());
      h.action_space = h.spaces.Describe(h.env->action_space());
      h.described = true;
    }
    *observation = h.observation;
    *action = h.action_space;
  });
}

inline int Reset(void* env, uint8_t has_seed, uint64_t seed, float* obs, size_t obs_size) {
  return Guard([&] {
    Observation o = static_cast<Handle*>(env)->env->Reset(has_seed ? std::optional<uint64_t>(seed)
                                                                   : std::nullopt);
    CopyObs("Reset", o, obs, obs_size);
  });
}

inline int Step(void* env, int64_t action_index, const float* action_values, size_t action_size,
                float* obs, size_t obs_size, RayEnvStepResult* result) {
  return Guard([&] {
    Handle& h = *static_cast<Handle*>(env);
    h.action.index = action_index;
    h.action.values.assign(action_values, action_values + action_size);
    StepResult r = h.env->Step(h.action);
    CopyObs("Step", r.obs, obs, obs_size);
    *result = {r.reward, static_cast<uint8_t>(r.terminated), static_cast<uint8_t>(r.truncated)};
  });
}

inline void Close(void* env) {
  Guard([&] { delete static_cast<Handle*>(env); });
}

inline const char* GetLastError() { return LastError().c_str(); }

inline const RayEnvPluginApi* Table() {
  static const RayEnvPluginApi api = {
      RAY_ENV_PLUGIN_ABI_VERSION, &List, &Create, &Spaces, &Reset, &Step, &Close, &GetLastError};
  return &api;
}

}  // namespace env_plugin_internal
#pragma GCC visibility pop
}  // namespace ray::rllib

#define RAY_ENV_CONCAT_INNER(a, b) a##b
#define RAY_ENV_CONCAT(a, b) RAY_ENV_CONCAT_INNER(a, b)
#define RAY_ENV_EXPORT extern "C" __attribute__((visibility("default"), used))

// RAY_ENV(id, factory, max_episode_steps, reward_threshold): registers an env of this
// plugin. Pass std::nullopt for "none" (no time limit, no reward threshold).
#define RAY_ENV(id, factory, max_episode_steps, reward_threshold)                              \
  static const ::ray::rllib::env_plugin_internal::Registrar RAY_ENV_CONCAT(ray_env_registrar_, \
                                                                           __LINE__)(          \
      ::ray::rllib::EnvSpec{id, max_episode_steps, reward_threshold}, factory)

RAY_ENV_EXPORT inline uint32_t ray_env_plugin_abi_version() { return RAY_ENV_PLUGIN_ABI_VERSION; }

RAY_ENV_EXPORT inline const RayEnvPluginApi* ray_env_plugin_api() {
  return ::ray::rllib::env_plugin_internal::Table();
}
