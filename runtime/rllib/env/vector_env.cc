#include "runtime/rllib/env/vector_env.h"

#include <algorithm>

#include "runtime/rllib/env/env_registry.h"

namespace ray::rllib {

Result<std::unique_ptr<VectorEnv>> VectorEnv::Make(const std::string& name, int num_envs,
                                                   const EnvConfig& config) {
  if (num_envs < 1) {
    return Status::InvalidArgument("VectorEnv needs num_envs >= 1, got " +
                                   std::to_string(num_envs));
  }
  std::vector<std::unique_ptr<Env>> envs;
  for (int i = 0; i < num_envs; ++i) {
    EnvConfig slot_config = config;
    slot_config.set_vector_index(i);
    RAY_ASSIGN_OR_RETURN(std::unique_ptr<Env> env, MakeEnv(name, slot_config));
    if (!env->observation_space().is_box()) {
      return Status::InvalidArgument("VectorEnv needs a Box observation space; '" + name +
                                     "' has " + env->observation_space().ToString());
    }
    envs.push_back(std::move(env));
  }
  return std::make_unique<VectorEnv>(std::move(envs));
}

VectorEnv::VectorEnv(std::vector<std::unique_ptr<Env>> envs)
    : envs_(std::move(envs)), obs_size_(envs_.at(0)->observation_space().box().size()) {}

std::vector<float> VectorEnv::VectorReset(std::optional<uint64_t> seed) {
  std::vector<float> obs;
  obs.reserve(envs_.size() * obs_size_);
  for (size_t i = 0; i < envs_.size(); ++i) {
    std::optional<uint64_t> slot_seed;
    if (seed.has_value()) slot_seed = *seed + i;
    Observation o = envs_[i]->Reset(slot_seed);
    obs.insert(obs.end(), o.begin(), o.end());
  }
  return obs;
}

Observation VectorEnv::ResetAt(int index, std::optional<uint64_t> seed) {
  return envs_.at(index)->Reset(seed);
}

void VectorEnv::VectorStep(const std::vector<Action>& actions, VectorStepResult* out) {
  const size_t n = envs_.size();
  out->obs.resize(n * obs_size_);
  out->rewards.resize(n);
  out->terminated.resize(n);
  out->truncated.resize(n);
  out->final_obs.resize(n);
  for (size_t i = 0; i < n; ++i) {
    StepResult r = envs_[i]->Step(actions.at(i));
    out->rewards[i] = r.reward;
    out->terminated[i] = r.terminated;
    out->truncated[i] = r.truncated;
    if (r.terminated || r.truncated) {
      out->final_obs[i] = std::move(r.obs);
      r.obs = envs_[i]->Reset(std::nullopt);
    } else {
      out->final_obs[i].clear();
    }
    std::copy(r.obs.begin(), r.obs.end(), out->obs.begin() + i * obs_size_);
  }
}

}  // namespace ray::rllib
