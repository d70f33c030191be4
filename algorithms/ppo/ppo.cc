// PPO (Schulman et al. 2017, "Proximal Policy Optimization Algorithms",
// arXiv:1707.06347) as RLlib runs it: synchronous sampling by `num_workers` rollout
// workers (actors, each stepping `num_envs_per_worker` envs with batched inference),
// GAE on the workers, then minibatch SGD epochs on the trainer's policy, whose
// weights go back to the workers (one object put per iteration) before the next round.
//
// The trainer is the Tune trainable "PPO": `rllib train` runs it as a Tune
// experiment, and `tune run ppo.so --run PPO --config '{"env": ...}'` searches over
// its config. `rllib rollout` runs this plugin as a job:
//   rollout CHECKPOINT --env E [--config JSON] [--steps N] [--episodes N]

#include <ray/api.h>
#include <ray/tune.h>

#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/base/util.h"
#include "runtime/rllib/env/env_plugin_loader.h"
#include "runtime/rllib/execution/env_runner_group.h"
#include "runtime/rllib/rollout_worker.h"

namespace {

using ray::rllib::PPOConfig;
using ray::rllib::RolloutWorker;
using ray::rllib::SampleBatch;
using ray::rllib::SampleResult;
using nlohmann::json;
namespace fs = std::filesystem;

template <typename T>
T OrThrow(ray::Result<T> r) {
  if (!r.ok()) throw std::runtime_error(r.status().message());
  return std::move(r).value();
}

void OrThrow(const ray::Status& st) {
  if (!st.ok()) throw std::runtime_error(st.message());
}

PPOConfig ParseConfig(const std::string& config_json) {
  PPOConfig c = OrThrow(PPOConfig::FromJson(config_json.empty() ? "{}" : config_json));
  OrThrow(c.Validate());
  return c;
}

// A rollout worker hosted by an actor.
class RemoteWorker {
 public:
  static RemoteWorker* Create(std::string env, std::string config_json, int index) {
    ray::rllib::SetTorchNumThreads(1);
    return new RemoteWorker(OrThrow(RolloutWorker::Create(env, ParseConfig(config_json), index)));
  }
  SampleResult Sample(std::vector<float> weights) {
    OrThrow(worker_->SetWeights(weights));
    return OrThrow(worker_->Sample());
  }
  bool Ping() { return true; }

 private:
  explicit RemoteWorker(std::unique_ptr<RolloutWorker> w) : worker_(std::move(w)) {}
  std::unique_ptr<RolloutWorker> worker_;
};

RAY_REMOTE(RemoteWorker::Create, &RemoteWorker::Sample, &RemoteWorker::Ping);

// `rollout CHECKPOINT --env E [--config JSON] [--steps N] [--episodes N]`.
struct Args {
  std::string mode;
  std::string env;
  std::string config = "{}";
  std::string checkpoint;
  int64_t steps = 10000;
  int64_t episodes = 0;
};

Args ParseArgs(int argc, char** argv) {
  Args a;
  if (argc < 2) throw std::invalid_argument("usage: rollout CHECKPOINT --env E ...");
  a.mode = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(k + " needs a value");
      return argv[++i];
    };
    if (k == "--env") a.env = value();
    else if (k == "--config") a.config = value();
    else if (k == "--steps") a.steps = std::stoll(value());
    else if (k == "--episodes") a.episodes = std::stoll(value());
    else if (a.checkpoint.empty() && k.rfind("--", 0) != 0) a.checkpoint = k;
    else throw std::invalid_argument("unknown argument '" + k + "'");
  }
  if (a.env.empty()) throw std::invalid_argument("--env is required");
  return a;
}

// The policy file inside a checkpoint directory (or the file itself).
std::string PolicyFile(const std::string& checkpoint) {
  if (fs::is_directory(checkpoint)) return checkpoint + "/policy.pt";
  return checkpoint;
}

// PPO as a Tune trainable: `rllib train` runs it as a Tune experiment (and so can
// `tune run ppo.so --run PPO`). The config is RLlib's, with "env". Each Step is one
// training iteration: sample train_batch_size steps from the rollout workers (actors
// the trainer creates, holding the trial's extra CPUs), then SGD on the local policy.
class PPOTrainer : public ray::tune::Trainable {
 public:
  // The trainer's CPU and its rollout workers', as RLlib's default_resource_request.
  static json DefaultResourceRequest(const json& config) {
    auto number = [&](const char* key, double fallback) {
      return config.contains(key) && config[key].is_number() ? config[key].get<double>() : fallback;
    };
    return {{"cpu", number("num_cpus_for_driver", 1)},
            {"extra_cpu", number("num_workers", 2) * number("num_cpus_per_worker", 1)}};
  }

  void Setup(const json& trial_config) override {
    json c = trial_config;
    env_ = c.value("env", "");
    if (env_.empty()) throw std::invalid_argument("config.env is required (e.g. CartPole-v1)");
    c.erase("env");
    config_ = ParseConfig(c.dump());
    config_.env = env_;
    ray::rllib::SetTorchNumThreads(1);
    local_ = OrThrow(RolloutWorker::Create(env_, config_, 0));
    config_json_ = config_.ToJson();
    full_config_ = json::parse(config_json_);
    // The samplers: num_workers actors, or (with none) one in this process.
    ray::rllib::EnvRunnerGroup<RemoteWorker>::Spec spec;
    spec.create_remote = [this](int id) {
      return ray::Actor(RemoteWorker::Create)
          .SetResource("CPU", config_.num_cpus_per_worker)
          .Remote(env_, config_json_, id);
    };
    spec.create_local = [this] {
      return std::unique_ptr<RemoteWorker>(RemoteWorker::Create(env_, config_json_, 0));
    };
    spec.probe = ray::rllib::HealthProbe<RemoteWorker>(&RemoteWorker::Ping);
    ray::rllib::EnvRunnerGroup<RemoteWorker>::Options options;
    options.num_workers = config_.num_workers;
    options.local_worker = config_.num_workers == 0;
    options.recreate_failed_workers = config_.recreate_failed_workers;
    workers_ = std::make_unique<ray::rllib::EnvRunnerGroup<RemoteWorker>>(spec, options);
  }

  ~PPOTrainer() override {
    try {
      if (workers_) workers_->Stop();  // null when Setup failed
    } catch (const std::exception&) {
    }
  }

  json Step() override {
    auto t0 = std::chrono::steady_clock::now();
    std::vector<SampleResult> results = Sample();
    std::vector<SampleBatch> batches;
    int64_t episodes_this_iter = 0;
    for (auto& r : results) {
      batches.push_back(std::move(r.batch));
      for (size_t k = 0; k < r.episode_returns.size(); ++k) {
        window_.push_back(r.episode_returns[k]);
        lengths_.push_back(r.episode_lengths[k]);
        if (window_.size() > static_cast<size_t>(config_.metrics_smoothing_episodes)) {
          window_.pop_front();
          lengths_.pop_front();
        }
      }
      episodes_this_iter += static_cast<int64_t>(r.episode_returns.size());
    }
    SampleBatch batch = OrThrow(SampleBatch::Concat(batches));
    auto t_sampled = std::chrono::steady_clock::now();
    auto stats = OrThrow(local_->policy().LearnOnBatch(batch));
    auto t_learned = std::chrono::steady_clock::now();
    steps_sampled_ += batch.size();

    auto mean = [](const auto& d) {
      return d.empty() ? json(nullptr) : json(std::accumulate(d.begin(), d.end(), 0.0) / d.size());
    };
    auto extreme = [&](bool max) {
      if (window_.empty()) return json(nullptr);
      return json(max ? *std::max_element(window_.begin(), window_.end())
                      : *std::min_element(window_.begin(), window_.end()));
    };
    json r;
    r["episode_reward_mean"] = mean(window_);
    r["episode_reward_min"] = extreme(false);
    r["episode_reward_max"] = extreme(true);
    r["episode_len_mean"] = mean(lengths_);
    r["episodes_this_iter"] = episodes_this_iter;
    r["timesteps_this_iter"] = batch.size();
    r["num_healthy_workers"] = workers_->num_healthy_remote_workers();
    r["num_remote_worker_restarts"] = workers_->num_remote_worker_restarts();
    r["config"] = full_config_;  // the trainer's config, defaults included (params.json: the trial's)
    r["info"] = {{"learner", {{"default_policy", stats.ToMap()}}},
                 {"num_steps_sampled", steps_sampled_},
                 {"num_steps_trained", steps_sampled_},
                 {"sample_time_ms", std::chrono::duration<double, std::milli>(t_sampled - t0).count()},
                 {"learn_time_ms", std::chrono::duration<double, std::milli>(t_learned - t_sampled).count()}};
    return r;
  }

  void Save(const std::string& dir) override {
    OrThrow(local_->policy().Save(dir + "/policy.pt"));
    json state = {{"env", env_}, {"num_steps_sampled", steps_sampled_}};
    OrThrow(ray::WriteFile(dir + "/algorithm_state.json", state.dump(2) + "\n"));
  }

  void Restore(const std::string& dir) override {
    OrThrow(local_->policy().Restore(PolicyFile(dir)));
    if (auto text = ray::ReadFile(dir + "/algorithm_state.json"); text.ok()) {
      steps_sampled_ = json::parse(*text, nullptr, false).value("num_steps_sampled", int64_t{0});
    }
  }

 private:
  // Every healthy worker samples with the current weights, round after round, until
  // the train batch is full. A dead worker is replaced when recreate_failed_workers
  // is set (its samples of that round are lost), else its error ends the step.
  std::vector<SampleResult> Sample() {
    std::vector<SampleResult> results;
    int64_t collected = 0;
    auto weights = ray::Put(local_->policy().GetWeights());
    while (collected < config_.train_batch_size) {
      for (auto& r : workers_->ForeachWorker(&RemoteWorker::Sample, weights)) {
        collected += r.value.batch.size();
        results.push_back(std::move(r.value));
      }
      if (workers_->num_healthy_workers() < std::max(1, config_.num_workers)) {
        for (int id : workers_->ProbeUnhealthyWorkers()) {
          std::printf("rollout worker %d was replaced\n", id);
        }
        if (workers_->num_healthy_workers() == 0) {
          throw std::runtime_error("no rollout worker is healthy, even after recreating them");
        }
      }
    }
    return results;
  }

  std::string env_;
  PPOConfig config_;
  std::string config_json_;
  json full_config_;
  std::unique_ptr<RolloutWorker> local_;  // the policy that learns
  std::unique_ptr<ray::rllib::EnvRunnerGroup<RemoteWorker>> workers_;
  std::deque<double> window_;
  std::deque<int64_t> lengths_;
  int64_t steps_sampled_ = 0;
};

int Rollout(const Args& a) {
  if (a.checkpoint.empty()) throw std::invalid_argument("rollout needs a CHECKPOINT");
  // As RLlib: the config the policy was trained with is the trial's params.json, beside
  // the checkpoint directory; --config overrides it.
  std::string config_json = a.config;
  fs::path dir = fs::is_directory(a.checkpoint) ? fs::path(a.checkpoint)
                                                : fs::path(a.checkpoint).parent_path();
  fs::path params = dir.parent_path() / "params.json";
  if (config_json == "{}" && fs::exists(params)) {
    std::ifstream in(params);
    config_json = json::parse(in).dump();
  }
  PPOConfig config = ParseConfig(config_json);
  config.num_envs_per_worker = 1;
  if (!config.env_plugin.empty()) OrThrow(ray::rllib::LoadEnvPlugin(config.env_plugin));
  ray::rllib::SetTorchNumThreads(1);
  auto env = OrThrow(ray::rllib::VectorEnv::Make(a.env, 1));
  auto policy = OrThrow(ray::rllib::PPOPolicy::Create(RolloutWorker::SpecFor(*env), config));
  OrThrow(policy->Restore(PolicyFile(a.checkpoint)));
  std::vector<float> obs = env->VectorReset(std::nullopt);
  ray::rllib::VectorStepResult step;
  double episode_return = 0;
  int64_t episodes = 0;
  std::vector<double> returns;
  for (int64_t t = 0; a.episodes > 0 ? episodes < a.episodes : t < a.steps; ++t) {
    auto act = OrThrow(policy->ComputeActions(obs, /*explore=*/false));
    ray::rllib::Action action = env->action_space().is_discrete()
        ? ray::rllib::Action::OfIndex(static_cast<int64_t>(act.actions[0]))
        : ray::rllib::Action::OfValues(act.actions);
    env->VectorStep({action}, &step);
    episode_return += step.rewards[0];
    obs = step.obs;
    if (step.done(0)) {
      ++episodes;
      returns.push_back(episode_return);
      std::printf("Episode #%lld: reward: %.1f\n", static_cast<long long>(episodes), episode_return);
      episode_return = 0;
    }
  }
  double mean = returns.empty() ? 0 : std::accumulate(returns.begin(), returns.end(), 0.0) / returns.size();
  std::printf("%lld episodes, mean reward %.2f\n", static_cast<long long>(episodes), mean);
  return 0;
}

}  // namespace

RAY_TUNE_TRAINABLE("PPO", PPOTrainer);

RAY_MAIN(int argc, char** argv) {
  Args a = ParseArgs(argc, argv);
  if (a.mode == "rollout") return Rollout(a);
  std::fprintf(stderr, "unknown mode '%s' (rollout; training runs through Tune)\n", a.mode.c_str());
  return 2;
}
