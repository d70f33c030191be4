#include "runtime/rllib/env/vector_env.h"

#include <algorithm>
#include <stdexcept>

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
    envs.push_back(std::move(env));
  }
  const Space& action = envs[0]->action_space();
  if (!action.is_box() && !action.is_discrete()) {
    return Status::InvalidArgument("env " + name + ": its action space " + action.ToString() +
                                   " is not supported (a Box or a Discrete)");
  }
  return std::make_unique<VectorEnv>(std::move(envs));
}

VectorEnv::VectorEnv(std::vector<std::unique_ptr<Env>> envs)
    : envs_(std::move(envs)), preprocessor_(envs_.at(0)->observation_space()) {}

Observation VectorEnv::Preprocess(Observation raw) const {
  try {
    return preprocessor_.Transform(std::move(raw));
  } catch (const std::invalid_argument& e) {
    const std::string& id = envs_[0]->spec().id;
    throw std::runtime_error("env " + (id.empty() ? std::string("(unregistered)") : id) + ": " + e.what());
  }
}

std::vector<float> VectorEnv::VectorReset(std::optional<uint64_t> seed) {
  std::vector<float> obs;
  obs.reserve(envs_.size() * obs_size());
  for (size_t i = 0; i < envs_.size(); ++i) {
    std::optional<uint64_t> slot_seed;
    if (seed.has_value()) slot_seed = *seed + i;
    Observation o = Preprocess(envs_[i]->Reset(slot_seed));
    obs.insert(obs.end(), o.begin(), o.end());
  }
  return obs;
}

Observation VectorEnv::ResetAt(int index, std::optional<uint64_t> seed) {
  return Preprocess(envs_.at(index)->Reset(seed));
}

void VectorEnv::VectorStep(const std::vector<Action>& actions, VectorStepResult* out) {
  const size_t n = envs_.size();
  out->obs.resize(n * obs_size());
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
      out->final_obs[i] = Preprocess(std::move(r.obs));
      r.obs = envs_[i]->Reset(std::nullopt);
    } else {
      out->final_obs[i].clear();
    }
    r.obs = Preprocess(std::move(r.obs));
    std::copy(r.obs.begin(), r.obs.end(), out->obs.begin() + i * obs_size());
  }
}

}  // namespace ray::rllib
