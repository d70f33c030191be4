#include "runtime/rllib/env/env_plugin_loader.h"

#include <dlfcn.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "ray/rllib/env_abi.h"
#include "runtime/rllib/env/env_registry.h"

namespace ray::rllib {
namespace {

// Tuples and Dicts nest at most this deep (a plugin's records might loop).
constexpr int kMaxSpaceDepth = 16;

// `at`: where in the space ("" for its root, then "[2]", "['pos']" for parts).
Status BadSpace(const std::string& at, const std::string& what) {
  return Status::InvalidArgument("a malformed space" + (at.empty() ? "" : " at " + at) + ": " + what);
}

// The space a plugin describes, checked first: the SDK's constructors abort on what a
// broken plugin could send.
Result<Space> ToSpace(const RayEnvSpace& s, const std::string& at = "", int depth = 0) {
  if (depth > kMaxSpaceDepth) return BadSpace(at, "nested deeper than " + std::to_string(kMaxSpaceDepth));
  switch (s.kind) {
    case RAY_ENV_SPACE_DISCRETE:
      if (s.n < 1) return BadSpace(at, "Discrete(" + std::to_string(s.n) + ")");
      return Space(Discrete(s.n));
    case RAY_ENV_SPACE_BOX: {
      int64_t product = 1;
      for (int64_t i = 0; s.shape && i < s.ndim; ++i) {
        if (s.shape[i] < 0 || __builtin_mul_overflow(product, s.shape[i], &product)) {
          return BadSpace(at, "a Box with a negative or overflowing shape");
        }
      }
      if (s.size > (int64_t{1} << 28)) return BadSpace(at, "a Box of more than 2^28 elements");
      if (s.size < 0 || s.ndim < 0 || (s.ndim > 0 && !s.shape) || (s.size > 0 && (!s.low || !s.high)) ||
          (s.ndim > 0 && product != s.size)) {
        return BadSpace(at, "a Box whose size, shape and bounds disagree");
      }
      std::vector<float> low(s.low, s.low + s.size), high(s.high, s.high + s.size);
      for (int64_t i = 0; i < s.size; ++i) {
        if (!(low[i] <= high[i])) return BadSpace(at, "a Box with low > high at element " + std::to_string(i));
      }
      return Space(Box(std::move(low), std::move(high), std::vector<int64_t>(s.shape, s.shape + s.ndim)));
    }
    case RAY_ENV_SPACE_TUPLE:
    case RAY_ENV_SPACE_DICT: {
      const bool dict = s.kind == RAY_ENV_SPACE_DICT;
      if (s.num_parts < 1 || !s.parts) return BadSpace(at, dict ? "a Dict of no parts" : "a Tuple of no parts");
      if (dict && !s.keys) return BadSpace(at, "a Dict without keys");
      std::vector<Space> parts;
      std::vector<std::pair<std::string, Space>> named;
      for (int64_t i = 0; i < s.num_parts; ++i) {
        const std::string part_at =
            at + (dict && s.keys[i] ? "['" + std::string(s.keys[i]) + "']" : "[" + std::to_string(i) + "]");
        RAY_ASSIGN_OR_RETURN(Space part, ToSpace(s.parts[i], part_at, depth + 1));
        if (!dict) {
          parts.push_back(std::move(part));
        } else if (!s.keys[i] || (!named.empty() && named.back().first >= s.keys[i])) {
          return BadSpace(at, "a Dict whose keys are missing, repeated or not sorted");
        } else {
          named.emplace_back(s.keys[i], std::move(part));
        }
      }
      if (dict) return Space(Dict(std::move(named)));
      return Space(Tuple(std::move(parts)));
    }
    default:
      return BadSpace(at, "unknown kind " + std::to_string(s.kind));
  }
}

// An env living in a plugin, driven through the library's function table.
class PluginEnv : public Env {
 public:
  // Takes ownership of `handle` (closed on destruction). `where`: "env plugin <path>:
  // <id>", the prefix of every error.
  PluginEnv(const RayEnvPluginApi* api, void* handle, std::string where, Space observation_space,
            Space action_space)
      : api_(api),
        handle_(handle),
        where_(std::move(where)),
        observation_space_(std::move(observation_space)),
        action_space_(std::move(action_space)),
        obs_size_(observation_space_.flat_size()) {}
  ~PluginEnv() override { api_->close(handle_); }

  Observation Reset(std::optional<uint64_t> seed) override {
    Observation obs(obs_size_);
    Check(api_->reset(handle_, seed.has_value(), seed.value_or(0), obs.data(), obs.size()),
          "Reset");
    return obs;
  }

  StepResult Step(const Action& action) override {
    StepResult out;
    out.obs.resize(obs_size_);
    RayEnvStepResult r{};
    Check(api_->step(handle_, action.index, action.values.data(), action.values.size(),
                     out.obs.data(), out.obs.size(), &r),
          "Step");
    out.reward = r.reward;
    out.terminated = r.terminated != 0;
    out.truncated = r.truncated != 0;
    return out;
  }

  const Space& observation_space() const override { return observation_space_; }
  const Space& action_space() const override { return action_space_; }

 private:
  void Check(int code, const char* what) const {
    if (code != 0) throw std::runtime_error(where_ + ": " + what + ": " + api_->last_error());
  }

  const RayEnvPluginApi* api_;
  void* handle_;
  std::string where_;
  Space observation_space_;
  Space action_space_;
  int64_t obs_size_;
};

Result<std::unique_ptr<Env>> MakePluginEnv(const RayEnvPluginApi* api, const std::string& path,
                                           const std::string& id, const EnvConfig& config) {
  const std::string where = "env plugin " + path + ": " + id;
  const std::string json = config.ToJson().dump();
  void* handle = nullptr;
  if (api->create(id.c_str(), json.data(), json.size(), config.worker_index(),
                  config.vector_index(), &handle) != 0) {
    return Status::InvalidArgument(where + ": " + api->last_error());
  }
  RayEnvSpace observation{}, action{};
  if (api->spaces(handle, &observation, &action) != 0) {
    std::string error = api->last_error();
    api->close(handle);
    return Status::InvalidArgument(where + ": spaces: " + error);
  }
  Result<Space> observation_space = ToSpace(observation);
  Result<Space> action_space = ToSpace(action);
  if (!observation_space.ok() || !action_space.ok()) {
    api->close(handle);
    const Status& bad = observation_space.ok() ? action_space.status() : observation_space.status();
    return Status::InvalidArgument(where + ": spaces: " + (observation_space.ok() ? "action" : "observation") +
                                   " space: " + bad.message());
  }
  return std::unique_ptr<Env>(std::make_unique<PluginEnv>(api, handle, where, std::move(*observation_space),
                                                          std::move(*action_space)));
}

}  // namespace

Status LoadEnvPlugin(const std::string& path) {
  // The builtin envs first, so that a plugin reusing one of their names is refused
  // whatever the order of use.
  RegisteredEnvs();
  return internal::LoadEnvPluginFile(path);
}

Status internal::LoadEnvPluginFile(const std::string& path) {
  static std::mutex mu;
  static std::set<std::string> loaded;
  std::error_code ec;
  std::string file = std::filesystem::canonical(path, ec).string();
  if (ec) return Status::NotFound("env plugin " + path + ": " + ec.message());
  std::lock_guard<std::mutex> lock(mu);
  if (loaded.count(file)) return Status::Ok();
  void* lib = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) return Status::InvalidArgument("env plugin " + path + ": " + ::dlerror());
  auto version =
      reinterpret_cast<RayEnvPluginAbiVersionFn>(::dlsym(lib, "ray_env_plugin_abi_version"));
  if (!version) {
    ::dlclose(lib);
    return Status::InvalidArgument("env plugin " + path +
                                   ": not an env plugin (it has no ray_env_plugin_abi_version; "
                                   "register its envs with RAY_ENV from <ray/rllib/env_plugin.h>)");
  }
  if (uint32_t v = version(); v != RAY_ENV_PLUGIN_ABI_VERSION) {
    ::dlclose(lib);
    return Status::FailedPrecondition("env plugin " + path + ": built for env plugin ABI version " +
                                      std::to_string(v) + ", but this ray runs version " +
                                      std::to_string(RAY_ENV_PLUGIN_ABI_VERSION) +
                                      "; rebuild it against this ray's <ray/rllib/env_plugin.h>");
  }
  auto get_api = reinterpret_cast<RayEnvPluginApiFn>(::dlsym(lib, "ray_env_plugin_api"));
  const RayEnvPluginApi* api = get_api ? get_api() : nullptr;
  if (!api || api->abi_version != RAY_ENV_PLUGIN_ABI_VERSION) {
    ::dlclose(lib);
    return Status::InvalidArgument("env plugin " + path +
                                   ": not an env plugin (no ray_env_plugin_api of its version)");
  }
  // The library stays loaded for the life of the process: its envs are in use.
  loaded.insert(file);
  const RayEnvInfo* infos = nullptr;
  size_t count = api->list(&infos);
  for (size_t i = 0; i < count; ++i) {
    const RayEnvInfo& info = infos[i];
    EnvSpec spec{info.id, std::nullopt, std::nullopt};
    if (info.max_episode_steps > 0) spec.max_episode_steps = info.max_episode_steps;
    if (info.has_reward_threshold) spec.reward_threshold = info.reward_threshold;
    std::string id = info.id;
    auto factory = [api, path, id](const EnvConfig& config) {
      return MakePluginEnv(api, path, id, config);
    };
    Status st = RegisterEnv(std::move(spec), factory);
    if (!st.ok()) return Status::InvalidArgument("env plugin " + path + ": " + st.message());
  }
  return Status::Ok();
}

}  // namespace ray::rllib
