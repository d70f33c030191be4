#pragma once
// Trainer: what RLlib's build_trainer gives every algorithm (PG, A2C, PPO; DQN with
// replay; A3C, IMPALA and APPO asynchronously), as a Tune trainable. An algorithm
// plugin supplies a traits struct and registers it with RAY_RLLIB_ALGORITHM:
//
//   struct PG {
//     static constexpr char kName[] = "PG";             // `rllib train --run PG`
//     using Config = PGConfig;                          // derives from CommonConfig
//     static Result<Config> ParseConfig(const std::string& json);  // overlay + Validate
//     static std::string ConfigJson(const Config& c);   // every key, defaults included
//     static Result<std::unique_ptr<Policy>> MakePolicy(const PolicySpec&, const Config&);
//     static SyncSamplesOptions OptimizerOptions(const Config& c);
//     // or, for an off-policy algorithm (DQN), instead of OptimizerOptions:
//     static SyncReplayOptions ReplayOptions(const Config& c);
//     // or, for A3C (AsyncGradientsOptimizer, needs num_workers >= 1):
//     static AsyncGradientsOptions AsyncGradients(const Config& c);
//     // or, for IMPALA and APPO (AsyncSamplesOptimizer, learner thread):
//     static AsyncSamplesOptions AsyncSamples(const Config& c);
//     // or, for Ape-X (AsyncReplayOptimizer: replay shards, learner thread):
//     static AsyncReplayOptions AsyncReplay(const Config& c);
//     // and, optionally, what a rollout worker's config gets from its index (Ape-X:
//     // per-worker exploration):
//     static void ForWorker(Config* c, int worker_index);
//   };
//   RAY_RLLIB_ALGORITHM(PG);
//
// That registers the trainable kName (Tune, `rllib train`), the rollout-worker actor
// (RemoteRolloutWorker<PG>) and the plugin's main, `rollout CHECKPOINT --env E
// [--config JSON] [--steps N] [--episodes N]` (`rllib rollout`).
//
// Setup: parses the config (unknown keys refused), builds the learning policy in a
// local RolloutWorker, and num_workers rollout-worker actors (or, with none, one
// sampler in this process) in an EnvRunnerGroup. With ReplayOptions the optimizer is
// SyncReplayOptimizer: the remote workers sample with the learner's weights and the
// global timestep (RemoteRolloutWorker::SampleAt), or, with none, the learner's own
// rollout worker samples, as RLlib's local worker. With AsyncGradients it is
// AsyncGradientsOptimizer (A3C), with AsyncSamples AsyncSamplesOptimizer (IMPALA,
// APPO; its learner thread owns the policy between steps, so checkpoints go through
// WithLearnerPaused); both drive the remote workers' SetWeights, SampleCurrent and
// ComputeGradients. Step: optimizer steps, then RLlib's result keys
// (episode_reward_mean/min/max over the last metrics_smoothing_episodes episodes,
// episode_len_mean, custom_metrics, episodes_this_iter, timesteps_this_iter,
// info/learner/default_policy/*, info/num_steps_sampled, num_steps_trained,
// *_time_ms). After the optimizer steps
// of an iteration, a MeanStdFilter is synchronised as RLlib's FilterManager does
// (every worker's new observations merged into the learner's filter, which goes back
// to every worker when synchronize_filters). Every evaluation_interval iterations an
// evaluation worker in this process samples evaluation_num_episodes episodes with
// the learner's weights and filter ("evaluation" in the result). The callbacks
// plugin's on_train_result sees (and may change) the result last. Save/Restore: the
// policy's state (policy.pt), the filter (filters.json) and the optimizer's counters
// and iteration (algorithm_state.json). Header-only, for plugins.

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
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/base/util.h"
#include "runtime/rllib/async_sampler.h"
#include "runtime/rllib/callbacks_plugin.h"
#include "runtime/rllib/env/env_plugin_loader.h"
#include "runtime/rllib/episode_metrics.h"
#include "runtime/rllib/execution/env_runner_group.h"
#include "runtime/rllib/optimizers/async_gradients_optimizer.h"
#include "runtime/rllib/optimizers/async_replay_optimizer.h"
#include "runtime/rllib/optimizers/async_samples_optimizer.h"
#include "runtime/rllib/optimizers/sync_replay_optimizer.h"
#include "runtime/rllib/optimizers/sync_samples_optimizer.h"
#include "runtime/rllib/policy/torch_policy.h"
#include "runtime/rllib/rollout_worker.h"
#include "runtime/rllib/trainer/trainer_support.h"

namespace ray::rllib {

namespace internal {

template <typename Algo>
typename Algo::Config ParseOrThrow(const std::string& json) {
  return OrThrow(Algo::ParseConfig(json.empty() ? "{}" : json));
}

template <typename Algo>
RolloutWorker::PolicyFactory FactoryFor(const typename Algo::Config& config) {
  return [config](const PolicySpec& spec, std::optional<int64_t> seed) {
    typename Algo::Config c = config;
    c.seed = seed;
    return Algo::MakePolicy(spec, c);
  };
}

// The policy file inside a checkpoint directory (or the file itself).
inline std::string PolicyFile(const std::string& checkpoint) {
  if (std::filesystem::is_directory(checkpoint)) return checkpoint + "/policy.pt";
  return checkpoint;
}

// RLlib's merge_dicts: `overlay` over `base`, objects merged key by key.
inline nlohmann::json MergeDicts(nlohmann::json base, const nlohmann::json& overlay) {
  for (const auto& [key, value] : overlay.items()) {
    if (value.is_object() && base.contains(key) && base[key].is_object()) {
      base[key] = MergeDicts(base[key], value);
    } else {
      base[key] = value;
    }
  }
  return base;
}

}  // namespace internal

// A rollout worker hosted by an actor: sets the weights it is given, then samples.
// With sample_async a second worker samples in a thread of its own (AsyncSampler):
// samples come from its queue, new weights, timesteps and filters reach it between
// two fragments (the weights after the first worker took them, so a bad size fails
// here), and learning on the worker (ComputeGradients) uses the first one's policy,
// so that it overlaps with sampling.
template <typename Algo>
class RemoteRolloutWorker {
 public:
  static RemoteRolloutWorker* Create(std::string env, std::string config_json, int index) {
    SetTorchNumThreads(1);
    auto config = internal::ParseOrThrow<Algo>(config_json);
    if constexpr (requires { Algo::ForWorker(&config, index); }) Algo::ForWorker(&config, index);
    auto make = [&] {
      return internal::OrThrow(RolloutWorker::Create(env, config, index, internal::FactoryFor<Algo>(config)));
    };
    auto worker = make();
    return new RemoteRolloutWorker(std::move(worker),
                                   config.sample_async ? std::make_unique<AsyncSampler>(make()) : nullptr);
  }
  SampleResult Sample(std::vector<float> weights) {
    SetWeights(std::move(weights));
    return SampleCurrent();
  }
  // As Sample, after telling the policy the global timestep (its schedules read it).
  SampleResult SampleAt(std::vector<float> weights, int64_t global_timestep) {
    SetGlobalTimestep(global_timestep);
    return Sample(std::move(weights));
  }
  // RLlib's set_weights, sample and compute_gradients, as AsyncGradientsOptimizer and
  // AsyncSamplesOptimizer call them one after the other on a worker.
  void SetWeights(std::vector<float> weights) {
    internal::OrThrow(worker_->SetWeights(weights));
    if (sampler_) sampler_->SetWeights(std::move(weights));
  }
  // RLlib's set_global_vars: the env steps sampled so far (exploration schedules read it).
  bool SetGlobalTimestep(int64_t global_timestep) {
    worker_->policy().OnGlobalVarUpdate(global_timestep);
    if (sampler_) sampler_->SetGlobalTimestep(global_timestep);
    return true;
  }
  // Samples with the weights it holds.
  SampleResult SampleCurrent() { return internal::OrThrow(sampler_ ? sampler_->Next() : worker_->Sample()); }
  // As SampleCurrent, with each row's TD error in the batch's weights column (Ape-X's
  // worker-side prioritization: the replay shard makes them priorities; the policy
  // must be a ReplayPolicy).
  SampleResult SampleWithTDErrors() {
    SampleResult r = SampleCurrent();
    auto* replay = dynamic_cast<ReplayPolicy*>(&worker_->policy());
    if (!replay) throw std::invalid_argument("worker_side_prioritization: the policy keeps no TD errors");
    r.batch.weights = replay->ComputeTDErrors(r.batch);
    return r;
  }
  // The gradient of the policy's loss on `sample`, with the sample's finished episodes.
  WorkerGradients ComputeGradients(SampleResult sample) {
    WorkerGradients out;
    out.gradients = worker_->policy().ComputeGradients(sample.batch);
    out.episode_returns = std::move(sample.episode_returns);
    out.episode_lengths = std::move(sample.episode_lengths);
    out.episode_custom_metrics = std::move(sample.episode_custom_metrics);
    return out;
  }
  // RLlib's get_filters(flush_after): the observation filter's state (empty: NoFilter).
  FilterState GetFilters(bool flush) {
    return WithSampling([&](RolloutWorker& w) {
      MeanStdFilter* f = w.filter();
      return f ? f->GetState(flush) : FilterState{};
    });
  }
  // RLlib's sync_filters: takes the learner's filter.
  bool SyncFilters(FilterState master) {
    WithSampling([&](RolloutWorker& w) {
      if (MeanStdFilter* f = w.filter()) internal::OrThrow(f->SyncFrom(master));
    });
    return true;
  }
  bool Ping() { return true; }

 private:
  RemoteRolloutWorker(std::unique_ptr<RolloutWorker> w, std::unique_ptr<AsyncSampler> sampler)
      : worker_(std::move(w)), sampler_(std::move(sampler)) {}
  // f(the worker that samples).
  template <typename F>
  auto WithSampling(F&& f) {
    return sampler_ ? sampler_->With(f) : f(*worker_);
  }

  std::unique_ptr<RolloutWorker> worker_;
  std::unique_ptr<AsyncSampler> sampler_;  // null unless sample_async
};

template <typename Algo>
class Trainer : public ray::tune::Trainable {
  using Json = nlohmann::json;
  using Worker = RemoteRolloutWorker<Algo>;

 public:
  // The trainer's CPU and its rollout workers', as RLlib's default_resource_request.
  static Json DefaultResourceRequest(const Json& config) {
    return internal::ResourceRequest<typename Algo::Config>(config);
  }

  void Setup(const Json& trial_config) override {
    Json c = trial_config;
    env_ = c.value("env", "");
    if (env_.empty()) throw std::invalid_argument("config.env is required (e.g. CartPole-v1)");
    c.erase("env");
    config_ = internal::ParseOrThrow<Algo>(c.dump());
    config_.env = env_;
    SetTorchNumThreads(1);
    local_ = internal::OrThrow(RolloutWorker::Create(env_, config_, 0, internal::FactoryFor<Algo>(config_)));
    config_json_ = Algo::ConfigJson(config_);
    full_config_ = Json::parse(config_json_);
    // The samplers: num_workers actors, or (with none) one in this process.
    typename EnvRunnerGroup<Worker>::Spec spec;
    spec.create_remote = [this](int id) {
      return ray::Actor(Worker::Create)
          .SetResource("CPU", config_.num_cpus_per_worker)
          .Remote(env_, config_json_, id);
    };
    spec.create_local = [this] { return std::unique_ptr<Worker>(Worker::Create(env_, config_json_, 0)); };
    spec.probe = HealthProbe<Worker>(&Worker::Ping);
    typename EnvRunnerGroup<Worker>::Options options;
    options.num_workers = config_.num_workers;
    options.local_worker = config_.num_workers == 0;
    options.recreate_failed_workers = config_.recreate_failed_workers;
    options.ignore_worker_failures = config_.ignore_worker_failures;
    workers_ = std::make_unique<EnvRunnerGroup<Worker>>(spec, options);
    metrics_ = std::make_unique<EpisodeMetrics>(config_.metrics_smoothing_episodes);
    if (!config_.callbacks.empty()) {
      callbacks_ = internal::OrThrow(CallbacksPlugin::Load(config_.callbacks, full_config_, 0));
    }
    if (config_.evaluation_interval) {
      // RLlib's evaluation worker: the config overlaid with evaluation_config, whole
      // episodes, one at a time.
      Json e = internal::MergeDicts(full_config_, config_.evaluation_config);
      e["batch_mode"] = "complete_episodes";
      e["sample_batch_size"] = 1;
      e["evaluation_interval"] = nullptr;
      e["sample_async"] = false;
      auto eval_config = internal::ParseOrThrow<Algo>(e.dump());
      evaluation_ = internal::OrThrow(
          RolloutWorker::Create(env_, eval_config, 0, internal::FactoryFor<Algo>(eval_config)));
    }
    if constexpr (requires { Algo::ReplayOptions(config_); }) {
      optimizer_ = std::make_unique<SyncReplayOptimizer>([this](int64_t t) { return SampleForReplay(t); },
                                                         &local_->policy(), Algo::ReplayOptions(config_));
    } else if constexpr (requires { Algo::AsyncReplay(config_); }) {
      optimizer_ = std::make_unique<AsyncReplayOptimizer<Worker>>(workers_.get(), &local_->policy(),
                                                                   Algo::AsyncReplay(config_));
    } else if constexpr (requires { Algo::AsyncSamples(config_); }) {
      optimizer_ = std::make_unique<AsyncSamplesOptimizer<Worker>>(workers_.get(), &local_->policy(),
                                                                    Algo::AsyncSamples(config_));
    } else if constexpr (requires { Algo::AsyncGradients(config_); }) {
      optimizer_ = std::make_unique<AsyncGradientsOptimizer<Worker>>(workers_.get(), &local_->policy(),
                                                                      Algo::AsyncGradients(config_));
    } else {
      optimizer_ = std::make_unique<SyncSamplesOptimizer<Worker>>(workers_.get(), &local_->policy(),
                                                                   Algo::OptimizerOptions(config_));
    }
    // Last, since making a worker in this process sets one thread: the learner's torch
    // ops use the CPUs the trial holds for it (at most the machine's).
    const double cpus = std::clamp(config_.num_cpus_for_driver, 1.0,
                                   static_cast<double>(std::max(1u, std::thread::hardware_concurrency())));
    SetTorchNumThreads(static_cast<int>(std::ceil(cpus)));
  }

  ~Trainer() override {
    try {
      if (workers_) workers_->Stop();  // null when Setup failed
    } catch (const std::exception&) {
    }
  }

  Json Step() override {
    // Optimizer steps until min_iter_time_s and timesteps_per_iteration are both met.
    const auto start = std::chrono::steady_clock::now();
    int64_t steps_this_iter = 0, episodes_this_iter = 0;
    LearnerStats learner;
    do {
      OptimizerStep step = optimizer_->Step();
      learner = std::move(step.learner);
      steps_this_iter += step.steps_sampled;
      episodes_this_iter += static_cast<int64_t>(step.episode_returns.size());
      AddEpisodes(step, metrics_.get());
    } while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
                 config_.min_iter_time_s ||
             steps_this_iter < config_.timesteps_per_iteration);
    SyncFilters();
    ++iteration_;
    Json r = metrics_->Summary();
    r["episodes_this_iter"] = episodes_this_iter;
    r["timesteps_this_iter"] = steps_this_iter;
    r["num_healthy_workers"] = workers_->num_healthy_remote_workers();
    r["num_remote_worker_restarts"] = workers_->num_remote_worker_restarts();
    r["config"] = full_config_;  // the trainer's config, defaults included (params.json: the trial's)
    Json info = optimizer_->stats().ToMap();
    info["learner"] = {{"default_policy", learner}};
    r["info"] = info;
    if (evaluation_ && iteration_ % *config_.evaluation_interval == 0) r["evaluation"] = Evaluate();
    if (callbacks_) r = internal::OrThrow(callbacks_->OnTrainResult(r));
    return r;
  }

  void Save(const std::string& dir) override {
    optimizer_->WithLearnerPaused([&] { local_->policy().SaveState(dir + "/policy.pt"); });
    const auto& s = optimizer_->stats();
    Json state = {{"env", env_}, {"algorithm", Algo::kName}, {"iteration", iteration_},
                  {"num_steps_sampled", s.num_steps_sampled}, {"num_steps_trained", s.num_steps_trained}};
    internal::OrThrow(ray::WriteFile(dir + "/algorithm_state.json", state.dump(2) + "\n"));
    if (MeanStdFilter* f = local_->filter()) {
      Json filters = {{"default_policy", f->ToJson()}};
      internal::OrThrow(ray::WriteFile(dir + "/filters.json", filters.dump() + "\n"));
    }
  }

  void Restore(const std::string& dir) override {
    optimizer_->WithLearnerPaused([&] { local_->policy().RestoreState(internal::PolicyFile(dir)); });
    if (auto text = ray::ReadFile(dir + "/algorithm_state.json"); text.ok()) {
      Json state = Json::parse(*text, nullptr, false);
      int64_t sampled = state.value("num_steps_sampled", int64_t{0});
      optimizer_->RestoreCounters(sampled, state.value("num_steps_trained", sampled));
      iteration_ = state.value("iteration", int64_t{0});
    }
    if (MeanStdFilter* f = local_->filter()) {
      internal::RestoreFilter(dir, f);
      workers_->ForeachWorker(&Worker::SyncFilters, f->GetState(false));
    }
  }

 private:
  // One round of SyncReplayOptimizer sampling at global timestep t.
  std::vector<SampleResult> SampleForReplay(int64_t t) {
    std::vector<SampleResult> out;
    if (workers_->num_remote_workers() == 0) {
      local_->policy().OnGlobalVarUpdate(t);
      out.push_back(internal::OrThrow(local_->Sample()));
      return out;
    }
    auto weights = ray::Put(local_->policy().GetWeights());
    typename EnvRunnerGroup<Worker>::ForeachOptions o;
    o.local_worker = false;
    for (auto& r : workers_->ForeachWorker(o, &Worker::SampleAt, weights, t)) out.push_back(std::move(r.value));
    return out;
  }

  static void AddEpisodes(const OptimizerStep& step, EpisodeMetrics* metrics) {
    for (size_t k = 0; k < step.episode_returns.size(); ++k) {
      metrics->Add(step.episode_returns[k], step.episode_lengths[k],
                   k < step.episode_custom_metrics.size() ? step.episode_custom_metrics[k]
                                                          : std::map<std::string, double>{});
    }
  }

  // RLlib's FilterManager.synchronize: the workers' new observations (their buffers,
  // flushed) into the learner's filter, and that filter back to every worker.
  void SyncFilters() {
    MeanStdFilter* master = local_->filter();
    if (!master) return;
    for (auto& r : workers_->ForeachWorker(&Worker::GetFilters, true)) internal::OrThrow(master->Merge(r.value));
    if (config_.synchronize_filters) workers_->ForeachWorker(&Worker::SyncFilters, master->GetState(false));
  }

  // evaluation_num_episodes whole episodes with the learner's weights, schedules
  // and filter; their metrics.
  Json Evaluate() {
    std::vector<float> weights;  // (a learner thread may be learning meanwhile)
    optimizer_->WithLearnerPaused([&] { weights = local_->policy().GetWeights(); });
    internal::OrThrow(evaluation_->SetWeights(weights));
    evaluation_->policy().OnGlobalVarUpdate(optimizer_->stats().num_steps_sampled);
    if (MeanStdFilter* master = local_->filter(); master && evaluation_->filter()) {
      internal::OrThrow(evaluation_->filter()->SyncFrom(master->GetState(false)));
    }
    EpisodeMetrics metrics(static_cast<size_t>(config_.evaluation_num_episodes));
    int64_t episodes = 0, steps = 0;
    while (episodes < config_.evaluation_num_episodes) {
      SampleResult r = internal::OrThrow(evaluation_->Sample());
      OptimizerStep step;
      step.episode_returns = std::move(r.episode_returns);
      step.episode_lengths = std::move(r.episode_lengths);
      step.episode_custom_metrics = std::move(r.episode_custom_metrics);
      episodes += static_cast<int64_t>(step.episode_returns.size());
      steps += r.batch.size();
      AddEpisodes(step, &metrics);
    }
    Json e = metrics.Summary();
    e["episodes_this_iter"] = episodes;
    e["timesteps_this_iter"] = steps;
    return e;
  }

  std::string env_;
  typename Algo::Config config_;
  std::string config_json_;
  Json full_config_;
  std::unique_ptr<RolloutWorker> local_;  // the policy that learns
  std::unique_ptr<EnvRunnerGroup<Worker>> workers_;
  std::unique_ptr<PolicyOptimizer> optimizer_;
  std::unique_ptr<EpisodeMetrics> metrics_;
  std::unique_ptr<CallbacksPlugin> callbacks_;  // on_train_result; null: none
  std::unique_ptr<RolloutWorker> evaluation_;   // null: no evaluation_interval
  int64_t iteration_ = 0;
};

// `rollout CHECKPOINT --env E [--config JSON] [--steps N] [--episodes N]`: runs the
// checkpoint's policy greedily and prints each episode's return.
template <typename Algo>
int RolloutMain(int argc, char** argv) {
  const auto args = internal::ParseRolloutArgs(argc, argv);
  if (!args) return 2;
  const std::string& env_name = args->env;
  const std::string& checkpoint = args->checkpoint;
  const int64_t steps = args->steps, episodes = args->episodes;
  auto config = internal::ParseOrThrow<Algo>(args->config_json);
  config.num_envs_per_worker = 1;
  if (!config.env_plugin.empty()) internal::OrThrow(LoadEnvPlugin(config.env_plugin));
  SetTorchNumThreads(1);
  EnvConfig env_config = internal::OrThrow(EnvConfig::FromJson(config.env_config));
  auto env = internal::OrThrow(VectorEnv::Make(env_name, 1, env_config));
  auto policy = internal::OrThrow(Algo::MakePolicy(RolloutWorker::SpecFor(*env), config));
  policy->RestoreState(internal::PolicyFile(checkpoint));
  // The filter the policy was trained behind, frozen (RLlib's rollout: update=False).
  std::unique_ptr<MeanStdFilter> filter;
  if (config.observation_filter == "MeanStdFilter") {
    filter = std::make_unique<MeanStdFilter>(static_cast<size_t>(env->obs_size()));
    internal::RestoreFilter(checkpoint, filter.get());
  }
  auto filtered = [&](std::vector<float> o) {
    if (filter) filter->Apply(o.data(), /*update=*/false);
    return o;
  };
  std::vector<float> obs = filtered(env->VectorReset(std::nullopt));
  VectorStepResult step;
  double episode_return = 0;
  int64_t done = 0;
  std::vector<double> returns;
  std::vector<float> state(policy->StateSize(), 0.f);  // a recurrent policy's
  for (int64_t t = 0; episodes > 0 ? done < episodes : t < steps; ++t) {
    ActionBatch act = policy->ComputeActionsWithState(obs, state, /*explore=*/false);
    state = std::move(act.state_out);
    Action action = env->action_space().is_discrete() ? Action::OfIndex(static_cast<int64_t>(act.actions[0]))
                                                      : Action::OfValues(act.actions);
    env->VectorStep({action}, &step);
    episode_return += step.rewards[0];
    obs = filtered(step.obs);
    if (step.done(0)) {
      state.assign(state.size(), 0.f);
      ++done;
      returns.push_back(episode_return);
      std::printf("Episode #%lld: reward: %.1f\n", static_cast<long long>(done), episode_return);
      episode_return = 0;
    }
  }
  double mean = returns.empty() ? 0 : std::accumulate(returns.begin(), returns.end(), 0.0) / returns.size();
  std::printf("%lld episodes, mean reward %.2f\n", static_cast<long long>(done), mean);
  return 0;
}

}  // namespace ray::rllib

// Registers algorithm `Algo` (a traits struct, see above): its trainable, its
// rollout-worker actor and the plugin's `rollout` main. Once per plugin.
#define RAY_RLLIB_ALGORITHM(Algo)                                                        \
  RAY_REMOTE_NAMED("RemoteRolloutWorker::Create", ::ray::rllib::RemoteRolloutWorker<Algo>::Create); \
  RAY_REMOTE_NAMED("RemoteRolloutWorker::Sample", &::ray::rllib::RemoteRolloutWorker<Algo>::Sample); \
  RAY_REMOTE_NAMED("RemoteRolloutWorker::SampleAt", &::ray::rllib::RemoteRolloutWorker<Algo>::SampleAt); \
  RAY_REMOTE_NAMED("RemoteRolloutWorker::Ping", &::ray::rllib::RemoteRolloutWorker<Algo>::Ping);     \
  RAY_REMOTE_NAMED("RemoteRolloutWorker::SetWeights", &::ray::rllib::RemoteRolloutWorker<Algo>::SetWeights); \
  RAY_REMOTE_NAMED("RemoteRolloutWorker::SampleCurrent", &::ray::rllib::RemoteRolloutWorker<Algo>::SampleCurrent); \
  RAY_REMOTE_NAMED("RemoteRolloutWorker::SetGlobalTimestep",                            \
                   &::ray::rllib::RemoteRolloutWorker<Algo>::SetGlobalTimestep);         \
  RAY_REMOTE_NAMED("RemoteRolloutWorker::SampleWithTDErrors",                           \
                   &::ray::rllib::RemoteRolloutWorker<Algo>::SampleWithTDErrors);        \
  RAY_REMOTE_NAMED("ReplayShard::Create", ::ray::rllib::ReplayShard::Create);            \
  RAY_REMOTE_NAMED("ReplayShard::Add", &::ray::rllib::ReplayShard::Add);                 \
  RAY_REMOTE_NAMED("ReplayShard::Replay", &::ray::rllib::ReplayShard::Replay);           \
  RAY_REMOTE_NAMED("ReplayShard::UpdatePriorities", &::ray::rllib::ReplayShard::UpdatePriorities); \
  RAY_REMOTE_NAMED("RemoteRolloutWorker::ComputeGradients",                             \
                   &::ray::rllib::RemoteRolloutWorker<Algo>::ComputeGradients);          \
  RAY_REMOTE_NAMED("RemoteRolloutWorker::GetFilters", &::ray::rllib::RemoteRolloutWorker<Algo>::GetFilters); \
  RAY_REMOTE_NAMED("RemoteRolloutWorker::SyncFilters", &::ray::rllib::RemoteRolloutWorker<Algo>::SyncFilters); \
  RAY_TUNE_TRAINABLE(Algo::kName, ::ray::rllib::Trainer<Algo>);                            \
  RAY_MAIN(int argc, char** argv) { return ::ray::rllib::RolloutMain<Algo>(argc, argv); }
