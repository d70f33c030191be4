#pragma once
// EvolutionTrainer: ES and ARS as Tune trainables (RLlib 0.7's ESTrainer and
// ARSTrainer). An algorithm plugin supplies a traits struct and registers it with
// RAY_EVOLUTION_ALGORITHM:
//
//   struct ES {
//     static constexpr char kName[] = "ES";          // `rllib train --run ES`
//     using Config = ESConfig;                        // derives from EvolutionConfig
//     static Result<Config> ParseConfig(const std::string& json);  // unknown keys refused
//     static std::string ConfigJson(const Config& c);
//     static EvolutionWorkerOptions WorkerOptions(const Config& c);
//     static std::unique_ptr<FlatOptimizer> MakeOptimizer(const Config& c, size_t dim);
//     static int64_t MinEpisodes(const Config& c);    // per iteration, both counted
//     static int64_t MinTimesteps(const Config& c);
//     // The optimizer's descent direction from the iteration's pairs.
//     static std::vector<float> Direction(const Config& c, const std::vector<PerturbedPair>& pairs,
//                                         const NoiseTable& noise, const std::vector<float>& theta);
//   };
//   RAY_EVOLUTION_ALGORITHM(ES);
//
// Setup builds the policy (flat_policy.h) from the env's spaces, the shared noise table
// (noise_size floats from seed 123), puts it in the object store ONCE and keeps a
// zero-copy view of that object; num_workers EvolutionWorkerActor actors get the same
// object as their constructor argument, each mapping it from the node's shared memory.
// Step: theta is put once; every worker runs ceil(MinEpisodes / 2 / num_workers) pairs
// (evolution_worker.h), repeated until MinEpisodes episodes and MinTimesteps steps were
// run; the trainer rebuilds each pair's perturbation from its own view of the table and
// steps its optimizer along Direction. Then RLlib's FilterManager.synchronize: the
// workers' new observation statistics merged into the trainer's filter, which goes back
// to every worker.
//
// Results (RLlib's keys): episode_reward_mean is the mean, over the last report_length
// iterations that had any, of each iteration's mean evaluation return (unperturbed
// episodes, see eval_prob); absent until the first evaluation episode.
// episode_reward_min/max and episode_len_mean are over those same evaluation episodes.
// timesteps_this_iter counts every env step run (perturbed and evaluation episodes;
// RLlib counts only the perturbed ones), episodes_this_iter every episode. info:
// weights_norm, grad_norm, update_ratio, episodes_so_far, num_steps_sampled,
// noise_table (object_id, floats). Checkpoints: weights, optimizer state and counters
// (evolution_state.json), the filter (filters.json). `rollout CHECKPOINT --env E`
// (`rllib rollout`) runs the checkpoint's policy without noise. Header-only, for
// plugins.

#include <ray/api.h>
#include <ray/tune.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "algorithms/es/es_gradient.h"
#include "algorithms/es/evolution_config.h"
#include "algorithms/es/evolution_worker.h"
#include "algorithms/es/flat_optimizer.h"
#include "algorithms/es/flat_policy.h"
#include "algorithms/es/noise_table.h"
#include "runtime/base/util.h"
#include "runtime/rllib/trainer/trainer_support.h"

namespace ray::rllib {

namespace evolution {

using internal::OrThrow;

// The worker options every algorithm shares.
inline EvolutionWorkerOptions SharedWorkerOptions(const EvolutionConfig& c) {
  EvolutionWorkerOptions o;
  o.env = c.env;
  o.env_config = c.env_config.dump();
  o.env_plugin = c.env_plugin;
  o.hiddens = c.fcnet_hiddens;
  o.activation = c.fcnet_activation;
  o.mean_std_filter = c.observation_filter == "MeanStdFilter";
  o.noise_stdev = c.noise_stdev;
  o.eval_prob = c.eval_prob;
  o.action_noise_std = c.action_noise_std;
  o.seed = c.seed ? *c.seed : -1;
  return o;
}

// The policy for `options` on its env's spaces (env built for worker index 0).
inline FlatPolicy MakePolicy(const EvolutionWorkerOptions& options) {
  auto env = OrThrow(MakeEvolutionEnv(options, 0));
  return OrThrow(FlatPolicy::Create(env->observation_space(), env->action_space(), options.hiddens,
                                    options.activation));
}

inline nlohmann::json ReadJsonFile(const std::filesystem::path& path) {
  auto text = OrThrow(ray::ReadFile(path.string()));
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) throw std::runtime_error(path.string() + ": not valid JSON");
  return j;
}

}  // namespace evolution

// A rollout actor: an EvolutionWorker reading the noise table the object store maps.
class EvolutionWorkerActor {
 public:
  static EvolutionWorkerActor* Create(EvolutionWorkerOptions options, ray::Blob noise, int index) {
    NoiseTable table(noise.data(), noise.size());
    auto worker = evolution::OrThrow(EvolutionWorker::Create(options, table, index));
    return new EvolutionWorkerActor(std::move(noise), std::move(worker));
  }
  RolloutBatch DoRollouts(std::vector<float> theta, int64_t num_pairs) {
    return evolution::OrThrow(worker_->DoRollouts(theta, num_pairs));
  }
  FilterState GetFilters(bool flush) { return worker_->GetFilters(flush); }
  bool SyncFilters(FilterState master) {
    evolution::OrThrow(worker_->SyncFilters(master));
    return true;
  }

 private:
  EvolutionWorkerActor(ray::Blob noise, std::unique_ptr<EvolutionWorker> worker)
      : noise_(std::move(noise)), worker_(std::move(worker)) {}
  ray::Blob noise_;  // keeps the mapping the worker's NoiseTable reads
  std::unique_ptr<EvolutionWorker> worker_;
};

template <typename Algo>
class EvolutionTrainer : public ray::tune::Trainable {
  using Json = nlohmann::json;

 public:
  // The trainer's CPU and its workers', as RLlib's default_resource_request.
  static Json DefaultResourceRequest(const Json& config) {
    return internal::ResourceRequest<typename Algo::Config>(config);
  }

  void Setup(const Json& trial_config) override {
    Json c = trial_config;
    const std::string env = c.value("env", "");
    if (env.empty()) throw std::invalid_argument("config.env is required (e.g. CartPole-v1)");
    c.erase("env");
    config_ = evolution::OrThrow(Algo::ParseConfig(c.dump()));
    config_.env = env;
    full_config_ = Json::parse(Algo::ConfigJson(config_));
    const EvolutionWorkerOptions options = Algo::WorkerOptions(config_);
    policy_ = std::make_unique<FlatPolicy>(evolution::MakePolicy(options));
    const int64_t dim = policy_->num_params();
    if (config_.noise_size < dim) {
      throw std::invalid_argument("config key 'noise_size' (" + std::to_string(config_.noise_size) +
                                  ") must be at least the policy's parameter count (" + std::to_string(dim) + ")");
    }
    theta_ = policy_->InitialWeights(config_.seed ? static_cast<uint64_t>(*config_.seed) : Rng::EntropySeed());
    if (options.mean_std_filter) filter_ = std::make_unique<MeanStdFilter>(static_cast<size_t>(policy_->obs_size()));
    optimizer_ = Algo::MakeOptimizer(config_, static_cast<size_t>(dim));
    // The noise table: put once; this trainer reads the stored object, as do the workers.
    noise_ref_ = ray::Put(ray::Blob(MakeNoiseBytes(config_.noise_size)));
    noise_blob_ = *ray::Get(noise_ref_);
    noise_ = NoiseTable(noise_blob_.data(), noise_blob_.size());
    for (int i = 0; i < config_.num_workers; ++i) {
      workers_.push_back(ray::Actor(EvolutionWorkerActor::Create)
                             .SetResource("CPU", config_.num_cpus_per_worker)
                             .Remote(options, noise_ref_, i + 1));
    }
  }

  ~EvolutionTrainer() override {
    for (auto& w : workers_) {
      try {
        w.Kill();
      } catch (const std::exception&) {
      }
    }
  }

  Json Step() override {
    const auto start = std::chrono::steady_clock::now();
    auto theta_ref = ray::Put(theta_);
    const int64_t min_episodes = Algo::MinEpisodes(config_), min_steps = Algo::MinTimesteps(config_);
    const int64_t per_call = std::max<int64_t>(1, (min_episodes + 2 * config_.num_workers - 1) / (2 * config_.num_workers));
    std::vector<PerturbedPair> pairs;
    std::vector<double> eval_returns;
    std::vector<int64_t> eval_lengths;
    int64_t episodes = 0, steps = 0;
    while (episodes < min_episodes || steps < min_steps) {
      std::vector<ray::ObjectRef<RolloutBatch>> calls;
      for (auto& w : workers_) calls.push_back(w.Task(&EvolutionWorkerActor::DoRollouts).Remote(theta_ref, per_call));
      for (const auto& batch : ray::Get(calls)) {
        for (const PerturbedPair& p : batch->pairs) {
          pairs.push_back(p);
          episodes += 2;
          steps += p.length_pos + p.length_neg;
        }
        eval_returns.insert(eval_returns.end(), batch->eval_returns.begin(), batch->eval_returns.end());
        eval_lengths.insert(eval_lengths.end(), batch->eval_lengths.begin(), batch->eval_lengths.end());
      }
    }
    const double sample_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::vector<float> g = Algo::Direction(config_, pairs, noise_, theta_);
    double update_ratio = 0;
    theta_ = optimizer_->Update(theta_, g, &update_ratio);
    SyncFilters();

    const int64_t eval_episodes = static_cast<int64_t>(eval_returns.size());
    const int64_t eval_steps = std::accumulate(eval_lengths.begin(), eval_lengths.end(), int64_t{0});
    episodes_so_far_ += episodes + eval_episodes;
    steps_so_far_ += steps + eval_steps;
    if (!eval_returns.empty()) {
      evaluations_.push_back({eval_returns, eval_lengths});
      while (static_cast<int>(evaluations_.size()) > config_.report_length) evaluations_.pop_front();
    }
    Json r = EvaluationSummary();
    r["episodes_this_iter"] = episodes + eval_episodes;
    r["timesteps_this_iter"] = steps + eval_steps;
    r["num_healthy_workers"] = workers_.size();
    r["config"] = full_config_;
    auto square_sum = [](const std::vector<float>& x) {
      return std::accumulate(x.begin(), x.end(), 0.0, [](double s, float v) { return s + double(v) * v; });
    };
    r["info"] = {{"weights_norm", square_sum(theta_)},
                 {"grad_norm", square_sum(g)},
                 {"update_ratio", update_ratio},
                 {"num_perturbation_pairs", pairs.size()},
                 {"num_evaluation_episodes", eval_episodes},
                 {"episodes_so_far", episodes_so_far_},
                 {"num_steps_sampled", steps_so_far_},
                 {"sample_time_ms", sample_s * 1000},
                 {"noise_table", {{"object_id", noise_ref_.ID()}, {"floats", noise_.size()}}}};
    return r;
  }

  void Save(const std::string& dir) override {
    Json state = {{"algorithm", Algo::kName},   {"env", config_.env},
                  {"weights", theta_},          {"optimizer", optimizer_->ToJson()},
                  {"episodes_so_far", episodes_so_far_}, {"num_steps_sampled", steps_so_far_}};
    evolution::OrThrow(ray::WriteFile(dir + "/evolution_state.json", state.dump() + "\n"));
    if (filter_) {
      Json filters = {{"default_policy", filter_->ToJson()}};
      evolution::OrThrow(ray::WriteFile(dir + "/filters.json", filters.dump() + "\n"));
    }
  }

  void Restore(const std::string& path) override {
    const auto dir = internal::CheckpointDir(path);
    Json state = evolution::ReadJsonFile(dir / "evolution_state.json");
    std::vector<float> theta = state.at("weights").get<std::vector<float>>();
    evolution::OrThrow(policy_->SetWeights(theta));  // checks the size
    theta_ = std::move(theta);
    evolution::OrThrow(optimizer_->FromJson(state.at("optimizer")));
    episodes_so_far_ = state.value("episodes_so_far", int64_t{0});
    steps_so_far_ = state.value("num_steps_sampled", int64_t{0});
    if (filter_) {
      internal::RestoreFilter(path, filter_.get());
      BroadcastFilter();
    }
  }

 private:
  // RLlib's FilterManager.synchronize over the worker actors.
  void SyncFilters() {
    if (!filter_) return;
    std::vector<ray::ObjectRef<FilterState>> calls;
    for (auto& w : workers_) calls.push_back(w.Task(&EvolutionWorkerActor::GetFilters).Remote(true));
    for (const auto& s : ray::Get(calls)) evolution::OrThrow(filter_->Merge(*s));
    BroadcastFilter();
  }
  void BroadcastFilter() {
    std::vector<ray::ObjectRef<bool>> calls;
    for (auto& w : workers_) calls.push_back(w.Task(&EvolutionWorkerActor::SyncFilters).Remote(filter_->GetState(false)));
    ray::Get(calls);
  }

  // episode_reward_mean (RLlib's mean of per-iteration evaluation means), min, max and
  // episode_len_mean over the last report_length iterations with evaluations.
  Json EvaluationSummary() const {
    Json r = Json::object();
    if (evaluations_.empty()) return r;
    double mean_sum = 0, lo = INFINITY, hi = -INFINITY, len_sum = 0;
    size_t n = 0;
    for (const auto& [returns, lengths] : evaluations_) {
      mean_sum += std::accumulate(returns.begin(), returns.end(), 0.0) / returns.size();
      for (double x : returns) lo = std::min(lo, x), hi = std::max(hi, x);
      len_sum += std::accumulate(lengths.begin(), lengths.end(), 0.0);
      n += lengths.size();
    }
    r["episode_reward_mean"] = mean_sum / evaluations_.size();
    r["episode_reward_min"] = lo;
    r["episode_reward_max"] = hi;
    r["episode_len_mean"] = len_sum / n;
    return r;
  }

  typename Algo::Config config_;
  Json full_config_;
  std::unique_ptr<FlatPolicy> policy_;  // the spaces and sizes; theta_ holds the weights
  std::vector<float> theta_;
  std::unique_ptr<MeanStdFilter> filter_;  // null: NoFilter
  std::unique_ptr<FlatOptimizer> optimizer_;
  ray::ObjectRef<ray::Blob> noise_ref_;
  ray::Blob noise_blob_;  // the stored table, mapped
  NoiseTable noise_;
  std::vector<ray::ActorHandle<EvolutionWorkerActor>> workers_;
  std::deque<std::pair<std::vector<double>, std::vector<int64_t>>> evaluations_;
  int64_t episodes_so_far_ = 0, steps_so_far_ = 0;
};

// `rollout CHECKPOINT --env E [--config JSON] [--steps N] [--episodes N]`: runs the
// checkpoint's policy (no perturbation, no action noise, the filter frozen) and prints
// each episode's return.
template <typename Algo>
int EvolutionRolloutMain(int argc, char** argv) {
  const auto args = internal::ParseRolloutArgs(argc, argv);
  if (!args) return 2;
  const int64_t steps = args->steps, episodes = args->episodes;
  const auto dir = internal::CheckpointDir(args->checkpoint);
  auto config = evolution::OrThrow(Algo::ParseConfig(args->config_json));
  config.env = args->env;
  EvolutionWorkerOptions options = Algo::WorkerOptions(config);
  FlatPolicy policy = evolution::MakePolicy(options);
  nlohmann::json state = evolution::ReadJsonFile(dir / "evolution_state.json");
  evolution::OrThrow(policy.SetWeights(state.at("weights").get<std::vector<float>>()));
  std::unique_ptr<MeanStdFilter> filter;
  if (options.mean_std_filter) {
    filter = std::make_unique<MeanStdFilter>(static_cast<size_t>(policy.obs_size()));
    internal::RestoreFilter(args->checkpoint, filter.get());
  }
  auto env = evolution::OrThrow(MakeEvolutionEnv(options, 0));
  const Preprocessor preprocess(env->observation_space());
  Observation obs = preprocess.Transform(env->Reset(std::nullopt));
  double episode_return = 0;
  int64_t done = 0;
  std::vector<double> returns;
  for (int64_t t = 0; episodes > 0 ? done < episodes : t < steps; ++t) {
    if (filter) filter->Apply(obs.data(), /*update=*/false);
    StepResult step = env->Step(policy.Compute(obs.data()));
    episode_return += step.reward;
    obs = preprocess.Transform(std::move(step.obs));
    if (step.terminated || step.truncated) {
      ++done;
      returns.push_back(episode_return);
      std::printf("Episode #%lld: reward: %.1f\n", static_cast<long long>(done), episode_return);
      episode_return = 0;
      obs = preprocess.Transform(env->Reset(std::nullopt));
    }
  }
  double mean = returns.empty() ? 0 : std::accumulate(returns.begin(), returns.end(), 0.0) / returns.size();
  std::printf("%lld episodes, mean reward %.2f\n", static_cast<long long>(done), mean);
  return 0;
}

}  // namespace ray::rllib

// Registers evolution algorithm `Algo` (see above): its trainable, its rollout actor
// and the plugin's `rollout` main. Once per plugin.
#define RAY_EVOLUTION_ALGORITHM(Algo)                                                                   \
  RAY_REMOTE_NAMED("EvolutionWorkerActor::Create", ::ray::rllib::EvolutionWorkerActor::Create);         \
  RAY_REMOTE_NAMED("EvolutionWorkerActor::DoRollouts", &::ray::rllib::EvolutionWorkerActor::DoRollouts); \
  RAY_REMOTE_NAMED("EvolutionWorkerActor::GetFilters", &::ray::rllib::EvolutionWorkerActor::GetFilters); \
  RAY_REMOTE_NAMED("EvolutionWorkerActor::SyncFilters", &::ray::rllib::EvolutionWorkerActor::SyncFilters); \
  RAY_TUNE_TRAINABLE(Algo::kName, ::ray::rllib::EvolutionTrainer<Algo>);                                \
  RAY_MAIN(int argc, char** argv) { return ::ray::rllib::EvolutionRolloutMain<Algo>(argc, argv); }
