// PPO (Schulman et al. 2017, "Proximal Policy Optimization Algorithms",
// arXiv:1707.06347) as RLlib runs it: synchronous sampling by `num_workers` rollout
// workers (actors, each stepping `num_envs_per_worker` envs with batched inference),
// GAE on the workers, then minibatch SGD epochs on the driver's policy, whose weights
// go back to the workers (one object put per iteration) before the next round.
//
// `rllib train` and `rllib rollout` run this plugin as a job:
//   train   --env E [--config JSON] [--stop JSON] [--checkpoint-freq N]
//           [--checkpoint-at-end] [--local-dir DIR] [--name NAME] [--restore CKPT]
//   rollout CHECKPOINT --env E [--config JSON] [--steps N] [--episodes N]

#include <ray/api.h>

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
#include "runtime/rllib/rollout_worker.h"
#include "runtime/tune/result_logger.h"

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

 private:
  explicit RemoteWorker(std::unique_ptr<RolloutWorker> w) : worker_(std::move(w)) {}
  std::unique_ptr<RolloutWorker> worker_;
};

RAY_REMOTE(RemoteWorker::Create, &RemoteWorker::Sample);

struct Args {
  std::string mode;
  std::string env;
  std::string config = "{}";
  std::string stop = "{}";
  std::string local_dir;
  std::string name = "default";
  std::string restore;
  std::string checkpoint;  // rollout
  int checkpoint_freq = 0;
  bool checkpoint_at_end = false;
  int64_t steps = 10000;
  int64_t episodes = 0;
};

Args ParseArgs(int argc, char** argv) {
  Args a;
  if (argc < 2) throw std::invalid_argument("usage: train|rollout ...");
  a.mode = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(k + " needs a value");
      return argv[++i];
    };
    if (k == "--env") a.env = value();
    else if (k == "--config") a.config = value();
    else if (k == "--stop") a.stop = value();
    else if (k == "--local-dir") a.local_dir = value();
    else if (k == "--name") a.name = value();
    else if (k == "--restore") a.restore = value();
    else if (k == "--checkpoint-freq") a.checkpoint_freq = std::stoi(value());
    else if (k == "--checkpoint-at-end") a.checkpoint_at_end = true;
    else if (k == "--steps") a.steps = std::stoll(value());
    else if (k == "--episodes") a.episodes = std::stoll(value());
    else if (a.mode == "rollout" && a.checkpoint.empty() && k.rfind("--", 0) != 0) a.checkpoint = k;
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

std::string SaveCheckpoint(RolloutWorker& local, const std::string& trial_dir, int64_t iteration,
                           const json& state) {
  std::string dir = trial_dir + "/checkpoint_" + std::to_string(iteration);
  fs::create_directories(dir);
  OrThrow(local.policy().Save(dir + "/policy.pt"));
  OrThrow(ray::WriteFile(dir + "/algorithm_state.json", state.dump(2) + "\n"));
  return dir;
}

// One row of the live progress table.
void PrintRow(const json& r, bool header) {
  if (header) {
    std::printf("%5s %10s %10s %10s %10s %9s %9s\n", "iter", "timesteps", "reward_mean",
                "reward_min", "reward_max", "episodes", "time_s");
  }
  std::printf("%5lld %10lld %10.2f %10.2f %10.2f %9lld %9.1f\n",
              static_cast<long long>(r["training_iteration"].get<int64_t>()),
              static_cast<long long>(r["timesteps_total"].get<int64_t>()),
              r["episode_reward_mean"].is_number() ? r["episode_reward_mean"].get<double>() : 0.0,
              r["episode_reward_min"].is_number() ? r["episode_reward_min"].get<double>() : 0.0,
              r["episode_reward_max"].is_number() ? r["episode_reward_max"].get<double>() : 0.0,
              static_cast<long long>(r["episodes_total"].get<int64_t>()),
              r["time_total_s"].get<double>());
  std::fflush(stdout);
}

int Train(const Args& a) {
  PPOConfig config = ParseConfig(a.config);
  config.env = a.env;
  json stop = json::parse(a.stop);
  ray::rllib::SetTorchNumThreads(1);
  auto local = OrThrow(RolloutWorker::Create(a.env, config, 0));
  if (!a.restore.empty()) OrThrow(local->policy().Restore(PolicyFile(a.restore)));

  std::string config_json = config.ToJson();
  auto start_worker = [&](int index) {
    return ray::Actor(RemoteWorker::Create).SetResource("CPU", 1).Remote(a.env, config_json, index);
  };
  std::vector<ray::ActorHandle<RemoteWorker>> workers;
  for (int i = 1; i <= config.num_workers; ++i) workers.push_back(start_worker(i));
  int64_t worker_restarts = 0;

  std::string local_dir = a.local_dir.empty() ? ray::tune::DefaultLocalDir() : a.local_dir;
  std::string trial_dir = local_dir + "/" + a.name + "/" + ray::tune::TrialName("PPO", a.env);
  json params = json::parse(config_json);
  auto logger = OrThrow(ray::tune::ResultLogger::Create(trial_dir, params, ray::ToHex(ray::RandomBytes(8))));
  std::printf("PPO on %s with %d rollout workers x %d envs; results in %s\n", a.env.c_str(),
              config.num_workers, config.num_envs_per_worker, trial_dir.c_str());

  std::deque<double> window;
  std::deque<int64_t> lengths;
  int64_t timesteps_total = 0, episodes_total = 0;
  json last;
  for (int64_t iteration = 1;; ++iteration) {
    auto t0 = std::chrono::steady_clock::now();
    // Sample until the train batch is full: every worker in parallel, each round.
    std::vector<SampleResult> results;
    int64_t collected = 0;
    auto weights = ray::Put(local->policy().GetWeights());
    while (collected < config.train_batch_size) {
      if (workers.empty()) {
        results.push_back(OrThrow(local->Sample()));
        collected += results.back().batch.size();
        continue;
      }
      std::vector<ray::ObjectRef<SampleResult>> refs;
      for (auto& w : workers) refs.push_back(w.Task(&RemoteWorker::Sample).Remote(weights));
      for (size_t k = 0; k < refs.size(); ++k) {
        try {
          auto r = ray::Get(refs[k]);
          collected += r->batch.size();
          results.push_back(std::move(*r));
        } catch (const ray::ActorDiedError& e) {
          // RLlib's recreate_failed_workers: a new worker takes the dead one's place.
          if (!config.recreate_failed_workers) throw;
          std::printf("rollout worker %zu died (%s); starting a new one\n", k + 1, e.what());
          workers[k] = start_worker(static_cast<int>(k + 1));
          ++worker_restarts;
        }
      }
    }
    std::vector<SampleBatch> batches;
    int64_t episodes_this_iter = 0;
    for (auto& r : results) {
      batches.push_back(std::move(r.batch));
      for (size_t k = 0; k < r.episode_returns.size(); ++k) {
        window.push_back(r.episode_returns[k]);
        lengths.push_back(r.episode_lengths[k]);
        if (window.size() > static_cast<size_t>(config.metrics_smoothing_episodes)) {
          window.pop_front();
          lengths.pop_front();
        }
      }
      episodes_this_iter += static_cast<int64_t>(r.episode_returns.size());
    }
    SampleBatch batch = OrThrow(SampleBatch::Concat(batches));
    auto t_sampled = std::chrono::steady_clock::now();
    auto stats = OrThrow(local->policy().LearnOnBatch(batch));
    auto t_learned = std::chrono::steady_clock::now();
    timesteps_total += batch.size();
    episodes_total += episodes_this_iter;

    json r;
    auto mean = [](const auto& d) {
      return d.empty() ? json(nullptr) : json(std::accumulate(d.begin(), d.end(), 0.0) / d.size());
    };
    r["episode_reward_mean"] = mean(window);
    r["episode_reward_min"] = window.empty() ? json(nullptr) : json(*std::min_element(window.begin(), window.end()));
    r["episode_reward_max"] = window.empty() ? json(nullptr) : json(*std::max_element(window.begin(), window.end()));
    r["episode_len_mean"] = mean(lengths);
    r["episodes_this_iter"] = episodes_this_iter;
    r["episodes_total"] = episodes_total;
    r["timesteps_this_iter"] = batch.size();
    r["timesteps_total"] = timesteps_total;
    r["num_healthy_workers"] = workers.size();
    r["num_remote_worker_restarts"] = worker_restarts;
    r["info"] = {{"learner", {{"default_policy", stats.ToMap()}}},
                 {"num_steps_sampled", timesteps_total},
                 {"num_steps_trained", timesteps_total},
                 {"sample_time_ms", std::chrono::duration<double, std::milli>(t_sampled - t0).count()},
                 {"learn_time_ms", std::chrono::duration<double, std::milli>(t_learned - t_sampled).count()}};
    bool done = ray::tune::ShouldStop(stop, [&] {
      json probe = r;
      probe["training_iteration"] = iteration;
      return probe;
    }());
    r["done"] = done;
    last = OrThrow(logger->Log(r));
    PrintRow(last, iteration == 1);
    json state = {{"iteration", iteration}, {"timesteps_total", timesteps_total}, {"env", a.env}};
    bool periodic = a.checkpoint_freq > 0 && iteration % a.checkpoint_freq == 0;
    if (periodic || (done && a.checkpoint_at_end)) {
      std::printf("checkpoint saved at %s\n", SaveCheckpoint(*local, trial_dir, iteration, state).c_str());
    }
    if (done) break;
  }
  std::printf("PPO on %s finished: episode_reward_mean %s after %lld timesteps, %lld iterations.\n",
              a.env.c_str(), last["episode_reward_mean"].dump().c_str(),
              static_cast<long long>(timesteps_total),
              static_cast<long long>(last["training_iteration"].get<int64_t>()));
  for (auto& w : workers) w.Kill();
  return 0;
}

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

RAY_MAIN(int argc, char** argv) {
  Args a = ParseArgs(argc, argv);
  if (a.mode == "train") return Train(a);
  if (a.mode == "rollout") return Rollout(a);
  std::fprintf(stderr, "unknown mode '%s' (train or rollout)\n", a.mode.c_str());
  return 2;
}
