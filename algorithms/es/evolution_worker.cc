#include "algorithms/es/evolution_worker.h"

#include <cmath>

#include "runtime/rllib/env/env_plugin_loader.h"
#include "runtime/rllib/env/env_registry.h"

namespace ray::rllib {

Result<std::unique_ptr<Env>> MakeEvolutionEnv(const EvolutionWorkerOptions& options, int index) {
  if (!options.env_plugin.empty()) RAY_RETURN_IF_ERROR(LoadEnvPlugin(options.env_plugin));
  nlohmann::json j = nlohmann::json::parse(options.env_config.empty() ? "{}" : options.env_config, nullptr, false);
  RAY_ASSIGN_OR_RETURN(EnvConfig env_config, EnvConfig::FromJson(j));
  env_config.set_worker_index(index);
  return MakeEnv(options.env, env_config);
}

Result<std::unique_ptr<EvolutionWorker>> EvolutionWorker::Create(const EvolutionWorkerOptions& options,
                                                                 NoiseTable noise, int index) {
  RAY_ASSIGN_OR_RETURN(auto env, MakeEvolutionEnv(options, index));
  RAY_ASSIGN_OR_RETURN(FlatPolicy policy, FlatPolicy::Create(env->observation_space(), env->action_space(),
                                                             options.hiddens, options.activation));
  if (noise.size() < policy.num_params()) {
    return Status::InvalidArgument("the noise table (" + std::to_string(noise.size()) +
                                   " floats) is smaller than the policy (" + std::to_string(policy.num_params()) +
                                   " parameters)");
  }
  const uint64_t seed = options.seed >= 0 ? static_cast<uint64_t>(options.seed) * 1000003u + index
                                          : Rng::EntropySeed();
  return std::unique_ptr<EvolutionWorker>(
      new EvolutionWorker(options, noise, std::move(env), std::move(policy), seed));
}

EvolutionWorker::EvolutionWorker(const EvolutionWorkerOptions& options, NoiseTable noise, std::unique_ptr<Env> env,
                                 FlatPolicy policy, uint64_t seed)
    : options_(options),
      noise_(noise),
      env_(std::move(env)),
      preprocessor_(env_->observation_space()),
      policy_(std::move(policy)),
      rng_(seed) {
  if (options_.mean_std_filter) filter_.emplace(static_cast<size_t>(policy_.obs_size()));
  next_reset_seed_ = seed;
}

std::pair<double, int64_t> EvolutionWorker::Episode(bool add_noise) {
  Observation obs = preprocessor_.Transform(env_->Reset(next_reset_seed_));
  next_reset_seed_.reset();  // seeded once; later episodes continue the env's stream
  double total = 0;
  int64_t length = 0;
  const double offset = std::abs(options_.offset);
  while (true) {
    if (filter_) filter_->Apply(obs.data(), /*update=*/true);
    Action action = policy_.Compute(obs.data(), add_noise ? &rng_ : nullptr, options_.action_noise_std);
    StepResult step = env_->Step(action);
    total += step.reward - offset;
    ++length;
    if (step.terminated || step.truncated) break;
    obs = preprocessor_.Transform(std::move(step.obs));
  }
  return {total, length};
}

Result<RolloutBatch> EvolutionWorker::DoRollouts(const std::vector<float>& theta, int64_t num_pairs) {
  RAY_RETURN_IF_ERROR(policy_.SetWeights(theta));
  RolloutBatch out;
  const int64_t dim = policy_.num_params();
  const float sigma = static_cast<float>(options_.noise_stdev);
  while (static_cast<int64_t>(out.pairs.size()) < num_pairs) {
    if (rng_.Uniform01() < options_.eval_prob) {
      RAY_RETURN_IF_ERROR(policy_.SetWeights(theta));
      auto [ret, len] = Episode(/*add_noise=*/false);
      out.eval_returns.push_back(ret);
      out.eval_lengths.push_back(len);
      continue;
    }
    PerturbedPair pair;
    pair.noise_index = noise_.SampleIndex(dim, rng_);
    std::vector<float> w = theta;
    noise_.AddScaled(pair.noise_index, sigma, &w);
    RAY_RETURN_IF_ERROR(policy_.SetWeights(std::move(w)));
    std::tie(pair.return_pos, pair.length_pos) = Episode(/*add_noise=*/true);
    w = theta;
    noise_.AddScaled(pair.noise_index, -sigma, &w);
    RAY_RETURN_IF_ERROR(policy_.SetWeights(std::move(w)));
    std::tie(pair.return_neg, pair.length_neg) = Episode(/*add_noise=*/true);
    out.pairs.push_back(pair);
  }
  return out;
}

FilterState EvolutionWorker::GetFilters(bool flush) { return filter_ ? filter_->GetState(flush) : FilterState{}; }

Status EvolutionWorker::SyncFilters(const FilterState& master) {
  return filter_ ? filter_->SyncFrom(master) : Status::Ok();
}

}  // namespace ray::rllib
