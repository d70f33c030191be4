// `rllib train` and `rllib rollout` as a user runs them.

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <functional>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Output {
  int code;
  std::string out, err;
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class RllibTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rllib_e2e_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs `rllib` (the link to ray) with the given argument string under a time limit.
  Output Rllib(const std::string& args, int timeout_s = 120, const std::string& env = "") {
    std::string rllib = fs::path(RAY_BINARY).parent_path() / "rllib";
    std::string cmd = env + (env.empty() ? "" : " ") + "timeout " + std::to_string(timeout_s) + " " + rllib + " " + args +
                      " --temp-dir " + dir_ + " >" + dir_ + "/out 2>" + dir_ + "/err";
    int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, Slurp(dir_ + "/out"), Slurp(dir_ + "/err")};
  }
  // The one trial dir under results/<experiment>/.
  std::string TrialDir(const std::string& experiment) {
    for (const auto& e : fs::directory_iterator(dir_ + "/results/" + experiment)) {
      if (e.is_directory()) return e.path();
    }
    return "";
  }
  static std::vector<json> Results(const std::string& trial) {
    std::vector<json> out;
    std::istringstream in(Slurp(trial + "/result.json"));
    std::string line;
    while (std::getline(in, line)) out.push_back(json::parse(line));
    return out;
  }
  // Trains PPO with 2 rollout workers for 40 iterations with `fault_key` set, kills
  // one rollout worker process once training runs, and returns the results.
  std::vector<json> TrainAndKillAWorker(const std::string& fault_key, const std::string& run = "PPO",
                                        json config = {{"sgd_minibatch_size", 64}, {"num_sgd_iter", 1}}) {
    const std::string& dir = dir_;
    std::string rllib = fs::path(RAY_BINARY).parent_path() / "rllib";
    config.update({{"num_workers", 2}, {"sample_batch_size", 100}, {"train_batch_size", 200}, {fault_key, true},
                   {"model", {{"fcnet_hiddens", {8}}}}});
    std::string cmd = "(timeout 120 " + rllib + " train --run " + run + " --env CartPole-v1 --stop " +
                      "'{\"training_iteration\": 40}' --config '" + config.dump() + "' --local-dir " + dir +
                      "/results --temp-dir " + dir + " >" + dir + "/out 2>" + dir +
                      "/err; echo $? >" + dir + "/code) &";
    EXPECT_EQ(std::system(cmd.c_str()), 0);
    auto wait_for = [](const std::function<bool()>& done, int seconds) {
      for (int i = 0; i < seconds * 20 && !done(); ++i) usleep(50000);
      return done();
    };
    auto trial = [&] { return TrialDir("default"); };
    auto results = [&] { return Results(trial()); };
    // Once training runs, kill a worker process that hosts a rollout worker: it has
    // the job's plugin mapped from the session's plugins/ dir, and is not the trainer
    // (the trial's actor, whose pid its results carry).
    bool running = wait_for([&] {
      return fs::exists(dir + "/results/default") && !trial().empty() && results().size() >= 2;
    }, 60);
    EXPECT_TRUE(running) << Slurp(dir + "/err");
    if (!running) return {};
    const int trainer = results().back()["pid"].get<int>();
    int victim = -1;
    for (const auto& e : fs::directory_iterator("/proc")) {
      std::string pid = e.path().filename();
      if (pid.find_first_not_of("0123456789") != std::string::npos || std::stoi(pid) == trainer) continue;
      std::string cmdline = Slurp(e.path() / "cmdline");
      if (cmdline.find("_worker") == std::string::npos || cmdline.find(dir) == std::string::npos) continue;
      if (Slurp(e.path() / "maps").find("/plugins/") != std::string::npos) victim = std::stoi(pid);
    }
    EXPECT_GT(victim, 0) << "no rollout worker process found";
    if (victim <= 0) return {};
    EXPECT_EQ(::kill(victim, SIGKILL), 0);
    EXPECT_TRUE(wait_for([&] { return fs::exists(dir + "/code"); }, 120));
    EXPECT_EQ(Slurp(dir + "/code"), "0\n") << Slurp(dir + "/err");
    return results();
  }
  std::string dir_;
};

const char* kSmall =
    "'{\"num_workers\": 1, \"num_envs_per_worker\": 2, \"sample_batch_size\": 50, "
    "\"train_batch_size\": 200, \"sgd_minibatch_size\": 64, \"num_sgd_iter\": 2, "
    "\"model\": {\"fcnet_hiddens\": [16, 16]}}'";

TEST_F(RllibTest, TrainWritesResultsAndCheckpointsThatRolloutRestores) {
  auto r = Rllib(std::string("train --run PPO --env CartPole-v1 --stop '{\"training_iteration\": 2}' ") +
                 "--config " + kSmall + " --checkpoint-freq 1 --local-dir " + dir_ + "/results");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("reward_mean"), std::string::npos) << "progress table: " << r.out;
  std::string trial = TrialDir("default");
  ASSERT_FALSE(trial.empty());
  EXPECT_NE(trial.find("PPO_CartPole-v1_"), std::string::npos);

  // params.json holds the trial's config; each result the trainer's, defaults included.
  auto params = json::parse(Slurp(trial + "/params.json"));
  EXPECT_EQ(params["num_workers"], 1);
  EXPECT_EQ(params["model"]["fcnet_hiddens"], json({16, 16}));
  EXPECT_EQ(params["env"], "CartPole-v1");

  auto results = Results(trial);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0]["config"]["lr"], 5e-5) << "RLlib's default stays";
  EXPECT_EQ(results[0]["config"]["num_workers"], 1);
  for (size_t i = 0; i < results.size(); ++i) {
    const json& x = results[i];
    EXPECT_EQ(x["training_iteration"], i + 1);
    EXPECT_EQ(x["timesteps_total"], 200 * (i + 1));
    for (const char* key : {"episode_reward_mean", "episode_reward_min", "episode_reward_max",
                            "episodes_this_iter", "time_this_iter_s", "time_total_s", "done",
                            "trial_id", "experiment_id", "date", "timestamp", "hostname",
                            "node_ip", "pid", "config"}) {
      EXPECT_TRUE(x.contains(key)) << key;
    }
    EXPECT_TRUE(x["info"]["learner"]["default_policy"].contains("policy_loss"));
  }
  EXPECT_EQ(results.back()["done"], true);
  std::string csv = Slurp(trial + "/progress.csv");
  EXPECT_NE(csv.find("episode_reward_mean"), std::string::npos);
  EXPECT_NE(csv.find("info/learner/default_policy/kl"), std::string::npos);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3) << "header + 2 rows";
  int event_files = 0;
  for (const auto& e : fs::directory_iterator(trial)) {
    event_files += e.path().filename().string().rfind("events.out.tfevents.", 0) == 0;
  }
  EXPECT_EQ(event_files, 1) << "TensorBoard's file beside result.json";
  ASSERT_TRUE(fs::exists(trial + "/checkpoint_1/policy.pt"));
  ASSERT_TRUE(fs::exists(trial + "/checkpoint_2/policy.pt"));

  auto rollout = Rllib("rollout " + trial + "/checkpoint_2 --run PPO --env CartPole-v1 --episodes 3");
  ASSERT_EQ(rollout.code, 0) << rollout.err;
  EXPECT_NE(rollout.out.find("Episode #3: reward:"), std::string::npos) << rollout.out;
}

TEST_F(RllibTest, MistakesAreNamed) {
  auto unknown = Rllib("train --run NOPE --env CartPole-v1");
  EXPECT_NE(unknown.code, 0);
  EXPECT_NE(unknown.err.find("unknown algorithm 'NOPE'"), std::string::npos) << unknown.err;
  // The installed algorithm plugins are listed.
  EXPECT_NE(unknown.err.find("installed: A2C, A3C, APEX, APEX_DDPG, APPO, ARS, DDPG, DQN, ES, IMPALA, PG, PPO, SAC, TD3"), std::string::npos) << unknown.err;

  auto key = Rllib("train --run PPO --env CartPole-v1 --config '{\"lrr\": 1}' --local-dir " + dir_);
  EXPECT_NE(key.code, 0);
  EXPECT_NE(key.err.find("'lrr'"), std::string::npos) << key.err;

  auto env = Rllib("train --run PPO --env NoSuchEnv-v0 --local-dir " + dir_);
  EXPECT_NE(env.code, 0);
  EXPECT_NE(env.err.find("CartPole-v1"), std::string::npos) << "lists known envs: " << env.err;

  auto json = Rllib("train --run PPO --env CartPole-v1 --stop 'not json'");
  EXPECT_NE(json.code, 0);
  EXPECT_NE(json.err.find("--stop"), std::string::npos) << json.err;

  std::ofstream(dir_ + "/bad.yaml") << "exp:\n  run: PPO\n  env: CartPole-v1\n  stopp: {}\n";
  auto yaml = Rllib("train -f " + dir_ + "/bad.yaml");
  EXPECT_NE(yaml.code, 0);
  EXPECT_NE(yaml.err.find("exp.stopp"), std::string::npos) << yaml.err;

  std::ofstream(dir_ + "/loggers.yaml") << "exp:\n  run: PPO\n  env: CartPole-v1\n  loggers: csv\n";
  auto loggers = Rllib("train -f " + dir_ + "/loggers.yaml");
  EXPECT_NE(loggers.code, 0);
  EXPECT_NE(loggers.err.find("exp.loggers: expected a list"), std::string::npos) << loggers.err;
  std::ofstream(dir_ + "/nojson.yaml") << "exp:\n  run: PPO\n  env: CartPole-v1\n  loggers: [csv]\n";
  auto nojson = Rllib("train -f " + dir_ + "/nojson.yaml --local-dir " + dir_);
  EXPECT_NE(nojson.code, 0);
  EXPECT_NE(nojson.err.find("json cannot be left out"), std::string::npos) << nojson.err;
}

// PG and A2C train through the same trainer as PPO (rollout-worker actors, the
// SyncSamplesOptimizer, checkpoints that `rllib rollout` restores); A2C also with
// microbatch_size. Keys of another algorithm are refused by name.
TEST_F(RllibTest, PGAndA2CTrainCheckpointAndRollOut) {
  const std::string small =
      "\"num_workers\": 1, \"num_envs_per_worker\": 2, \"sample_batch_size\": 20, "
      "\"train_batch_size\": 80, \"model\": {\"fcnet_hiddens\": [16]}";
  for (const std::string algo : {"PG", "A2C"}) {
    std::string extra = algo == "A2C" ? ", \"microbatch_size\": 20, \"min_iter_time_s\": 0" : "";
    auto r = Rllib("train --run " + algo + " --env CartPole-v1 --stop '{\"training_iteration\": 2}' " +
                   "--config '{" + small + extra + "}' --checkpoint-at-end --local-dir " + dir_ +
                   "/results_" + algo + " --experiment-name " + algo);
    ASSERT_EQ(r.code, 0) << algo << ": " << r.err;
    std::string trial;
    for (const auto& e : fs::directory_iterator(dir_ + "/results_" + algo + "/" + algo)) {
      if (e.is_directory()) trial = e.path();
    }
    ASSERT_NE(trial.find(algo + "_CartPole-v1_"), std::string::npos) << trial;
    auto results = Results(trial);
    ASSERT_EQ(results.size(), 2u) << algo;
    const json& last = results.back();
    EXPECT_EQ(last["timesteps_total"], 160) << algo;
    EXPECT_EQ(last["info"]["num_steps_sampled"], 160) << algo;
    EXPECT_EQ(last["info"]["num_steps_trained"], 160) << algo;
    EXPECT_TRUE(last["info"].contains("sample_time_ms")) << algo;
    EXPECT_TRUE(last["info"].contains("grad_time_ms")) << algo;
    EXPECT_TRUE(last["info"]["learner"]["default_policy"].contains("policy_loss")) << algo;
    EXPECT_EQ(last["config"]["num_workers"], 1) << algo;
    ASSERT_TRUE(fs::exists(trial + "/checkpoint_2/policy.pt")) << algo;
    auto rollout = Rllib("rollout " + trial + "/checkpoint_2 --run " + algo +
                         " --env CartPole-v1 --episodes 2");
    ASSERT_EQ(rollout.code, 0) << algo << ": " << rollout.err;
    EXPECT_NE(rollout.out.find("Episode #2: reward:"), std::string::npos) << rollout.out;
  }
  auto key = Rllib("train --run PG --env CartPole-v1 --config '{\"clip_param\": 0.2}' --local-dir " + dir_);
  EXPECT_NE(key.code, 0);
  EXPECT_NE(key.err.find("'clip_param'"), std::string::npos) << key.err;
  auto async = Rllib("train --run A2C --env CartPole-v1 --config '{\"sample_async\": true}' --local-dir " + dir_);
  EXPECT_NE(async.code, 0);
  EXPECT_NE(async.err.find("'sample_async'"), std::string::npos) << async.err;
}

// A3C (AsyncGradientsOptimizer), IMPALA and APPO (AsyncSamplesOptimizer with its
// learner thread) train on rollout-worker actors through the same trainer, report their
// optimizers' stats, write checkpoints that `rllib rollout` restores, and refuse
// what they do not implement by name.
TEST_F(RllibTest, A3CIMPALAAndAPPOTrainCheckpointAndRollOut) {
  const std::string small =
      "\"num_workers\": 2, \"num_envs_per_worker\": 2, \"sample_batch_size\": 10, "
      "\"min_iter_time_s\": 0, \"timesteps_per_iteration\": 400, \"model\": {\"fcnet_hiddens\": [16]}";
  for (const std::string algo : {"A3C", "IMPALA", "APPO"}) {
    std::string extra = algo == "A3C" ? ", \"optimizer\": {\"grads_per_step\": 4}" : ", \"train_batch_size\": 100";
    auto r = Rllib("train --run " + algo + " --env CartPole-v1 --stop '{\"training_iteration\": 2}' " +
                   "--config '{" + small + extra + "}' --checkpoint-at-end --local-dir " + dir_ +
                   "/results_" + algo + " --experiment-name " + algo);
    ASSERT_EQ(r.code, 0) << algo << ": " << r.err;
    std::string trial;
    for (const auto& e : fs::directory_iterator(dir_ + "/results_" + algo + "/" + algo)) {
      if (e.is_directory()) trial = e.path();
    }
    auto results = Results(trial);
    ASSERT_EQ(results.size(), 2u) << algo;
    const json& last = results.back();
    EXPECT_GE(last["timesteps_total"].get<int64_t>(), 800) << algo;
    EXPECT_EQ(last["timesteps_total"], last["info"]["num_steps_sampled"]) << algo;
    EXPECT_TRUE(last["info"]["learner"]["default_policy"].contains("policy_loss")) << algo;
    EXPECT_EQ(last["num_healthy_workers"], 2) << algo;
    if (algo == "A3C") {
      EXPECT_EQ(last["info"]["num_steps_trained"], last["info"]["num_steps_sampled"]);
      for (const char* k : {"wait_time_ms", "apply_time_ms", "dispatch_time_ms"}) {
        EXPECT_TRUE(last["info"].contains(k)) << k;
      }
      EXPECT_EQ(last["config"]["optimizer"]["grads_per_step"], 4);
    } else {
      EXPECT_GT(last["info"]["num_steps_trained"].get<int64_t>(), 0);
      for (const char* k : {"learner_queue_size", "num_broadcasts", "num_weight_syncs", "learner_grad_time_ms"}) {
        EXPECT_TRUE(last["info"].contains(k)) << k;
      }
      EXPECT_EQ(last["config"]["vtrace_clip_rho_threshold"], 1.0);
    }
    ASSERT_TRUE(fs::exists(trial + "/checkpoint_2/policy.pt")) << algo;
    if (algo == "APPO") continue;  // its checkpoints are IMPALA's
    auto rollout = Rllib("rollout " + trial + "/checkpoint_2 --run " + algo + " --env CartPole-v1 --episodes 2");
    ASSERT_EQ(rollout.code, 0) << algo << ": " << rollout.err;
    EXPECT_NE(rollout.out.find("Episode #2: reward:"), std::string::npos) << rollout.out;
  }
  // The other refusals are unit-tested (async_algorithms_test); this one is RLlib's error.
  auto r = Rllib("train --run A3C --env CartPole-v1 --config '{\"num_workers\": 0}' --local-dir " + dir_);
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("at least 1 remote workers"), std::string::npos) << r.err;
}

// DQN trains through the same trainer with SyncReplayOptimizer: with the learner's
// own sampler (num_workers 0) and with a rollout-worker actor that samples at the
// global timestep; checkpoints restore in `rllib rollout`; unsupported keys are
// refused by name.
TEST_F(RllibTest, DQNTrainsCheckpointsAndRollsOut) {
  for (int workers : {0, 1}) {
    const std::string name = "DQN" + std::to_string(workers);
    auto r = Rllib("train --run DQN --env CartPole-v0 --stop '{\"training_iteration\": 2}' --config '{"
                   "\"num_workers\": " + std::to_string(workers) + ", \"timesteps_per_iteration\": 200, "
                   "\"min_iter_time_s\": 0, \"learning_starts\": 100, \"target_network_update_freq\": 50, "
                   "\"hiddens\": [16], \"model\": {\"fcnet_hiddens\": [16]}}' --checkpoint-at-end "
                   "--local-dir " + dir_ + "/results --experiment-name " + name);
    ASSERT_EQ(r.code, 0) << name << ": " << r.err;
    auto results = Results(TrialDir(name));
    ASSERT_EQ(results.size(), 2u) << name;
    const json& last = results.back();
    const json& info = last["info"];
    EXPECT_EQ(last["timesteps_total"], 400) << name;
    EXPECT_EQ(info["num_steps_sampled"], 400) << name;
    // One train_batch_size (32) learn step per 4-step sample once 100 steps were sampled.
    EXPECT_EQ(info["num_steps_trained"], 32 * (400 - 100) / 4) << name;
    EXPECT_EQ(info["learning_starts"], 100) << name;
    EXPECT_EQ(info["num_target_updates"], 7) << name;  // every > 50 steps: at 52, 104, ..., 364
    EXPECT_EQ(info["replay_buffer_size"], 400) << name;
    EXPECT_TRUE(info.contains("replay_time_ms")) << name;
    EXPECT_TRUE(info["learner"]["default_policy"].contains("mean_q")) << name;
    EXPECT_EQ(last["config"]["num_workers"], workers) << name;
    EXPECT_EQ(last["config"]["dueling"], true) << name;
    const std::string trial = TrialDir(name);
    ASSERT_TRUE(fs::exists(trial + "/checkpoint_2/policy.pt")) << name;
    auto rollout = Rllib("rollout " + trial + "/checkpoint_2 --run DQN --env CartPole-v0 --episodes 2");
    ASSERT_EQ(rollout.code, 0) << name << ": " << rollout.err;
    EXPECT_NE(rollout.out.find("Episode #2: reward:"), std::string::npos) << rollout.out;
  }
  for (const std::string key : {"soft_q\": true"}) {
    auto bad = Rllib("train --run DQN --env CartPole-v0 --config '{\"" + key + "}' --local-dir " + dir_);
    EXPECT_NE(bad.code, 0);
    const std::string name = key.substr(0, key.find('"'));
    EXPECT_NE(bad.err.find("'" + name + "'"), std::string::npos) << bad.err;
    EXPECT_NE(bad.err.find("not supported"), std::string::npos) << bad.err;
  }
}

// Ape-X DQN: rollout-worker actors sample with their own epsilons into replay shard
// actors, the learner thread trains on what the shards replay and sends the TD errors
// back, weights go to the workers every max_weight_sync_delay steps; checkpoints
// restore in `rllib rollout`; num_workers 0 is refused (RLlib: training would hang).
TEST_F(RllibTest, ApexTrainsWithReplayShardsCheckpointsAndRollsOut) {
  auto r = Rllib("train --run APEX --env CartPole-v0 --stop '{\"training_iteration\": 2}' --config '{"
                 "\"num_workers\": 3, \"buffer_size\": 10000, \"learning_starts\": 500, \"train_batch_size\": 32, "
                 "\"sample_batch_size\": 20, \"timesteps_per_iteration\": 2000, \"min_iter_time_s\": 0, "
                 "\"target_network_update_freq\": 1000, \"training_intensity\": 2, \"hiddens\": [16], "
                 "\"optimizer\": {\"num_replay_buffer_shards\": 2, \"max_weight_sync_delay\": 100}, "
                 "\"model\": {\"fcnet_hiddens\": [16]}}' --checkpoint-at-end --local-dir " + dir_ + "/results");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string trial = TrialDir("default");
  auto results = Results(trial);
  ASSERT_EQ(results.size(), 2u);
  const json& last = results.back();
  const json& info = last["info"];
  EXPECT_GE(last["timesteps_total"].get<int64_t>(), 4000);
  EXPECT_GE(info["num_steps_trained"].get<double>(), 2 * (last["timesteps_total"].get<double>() - 500) - 2000)
      << "training_intensity 2 holds the samplers back: " << info.dump();
  EXPECT_GT(info["num_weight_syncs"].get<double>(), 0);
  EXPECT_GE(info["num_target_updates"].get<double>(), 3);
  EXPECT_TRUE(info.contains("replay_processing_time_ms"));
  EXPECT_TRUE(info["learner"]["default_policy"].contains("mean_q"));
  EXPECT_EQ(last["config"]["per_worker_exploration"], true);
  EXPECT_EQ(last["config"]["optimizer"]["num_replay_buffer_shards"], 2);
  auto rollout = Rllib("rollout " + trial + "/checkpoint_2 --run APEX --episodes 2");
  ASSERT_EQ(rollout.code, 0) << rollout.err;
  EXPECT_NE(rollout.out.find("Episode #2: reward:"), std::string::npos) << rollout.out;

  auto none = Rllib("train --run APEX --env CartPole-v0 --config '{\"num_workers\": 0}' --local-dir " + dir_ + "/none");
  EXPECT_NE(none.code, 0);
  EXPECT_NE(none.err.find("'num_workers' must be >= 1"), std::string::npos) << none.err;
}

// Ape-X DDPG: DDPG's policy on the same replay shards and learner thread, on
// Pendulum-v1 (Box actions); checkpoints restore in `rllib rollout`.
TEST_F(RllibTest, ApexDDPGTrainsOnPendulumAndRollsOut) {
  auto r = Rllib("train --run APEX_DDPG --env Pendulum-v1 --stop '{\"training_iteration\": 2}' --config '{"
                 "\"num_workers\": 2, \"buffer_size\": 10000, \"learning_starts\": 500, \"train_batch_size\": 64, "
                 "\"sample_batch_size\": 20, \"timesteps_per_iteration\": 1000, \"min_iter_time_s\": 0, "
                 "\"target_network_update_freq\": 0, \"training_intensity\": 4, \"actor_hiddens\": [16], "
                 "\"critic_hiddens\": [16], \"optimizer\": {\"num_replay_buffer_shards\": 2}}' "
                 "--checkpoint-at-end --local-dir " + dir_ + "/results");
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string trial = TrialDir("default");
  auto results = Results(trial);
  ASSERT_EQ(results.size(), 2u);
  const json& info = results.back()["info"];
  EXPECT_GT(info["num_steps_trained"].get<double>(), 0) << info.dump();
  EXPECT_GT(info["num_target_updates"].get<double>(), 0);
  EXPECT_TRUE(info["learner"]["default_policy"].contains("critic_loss"));
  auto rollout = Rllib("rollout " + trial + "/checkpoint_2 --run APEX_DDPG --episodes 1");
  ASSERT_EQ(rollout.code, 0) << rollout.err;
  EXPECT_NE(rollout.out.find("Episode #1: reward:"), std::string::npos) << rollout.out;
}

// SAC, TD3 and DDPG train on Pendulum-v1 (Box actions) through the same trainer with
// SyncReplayOptimizer (SAC also with a rollout-worker actor), one learn step per env
// step once learning_starts steps were sampled and the targets following each;
// checkpoints restore in `rllib rollout`; a Discrete env and keys they do not use
// are refused by name.
TEST_F(RllibTest, ContinuousControlTrainsCheckpointsAndRollsOut) {
  for (const std::string algo : {"SAC", "TD3", "DDPG"}) {
    const std::string nets = algo == "SAC"
        ? "\"Q_model\": {\"hidden_layer_sizes\": [16]}, \"policy_model\": {\"hidden_layer_sizes\": [16]}, "
          "\"num_workers\": 1"
        : "\"actor_hiddens\": [16], \"critic_hiddens\": [16], \"pure_exploration_steps\": 100";
    auto r = Rllib("train --run " + algo + " --env Pendulum-v1 --stop '{\"training_iteration\": 2}' --config '{" +
                   nets + ", \"timesteps_per_iteration\": 200, \"min_iter_time_s\": 0, "
                   "\"learning_starts\": 100, \"train_batch_size\": 32}' --checkpoint-at-end "
                   "--local-dir " + dir_ + "/results --experiment-name " + algo);
    ASSERT_EQ(r.code, 0) << algo << ": " << r.err;
    const std::string trial = TrialDir(algo);
    auto results = Results(trial);
    ASSERT_EQ(results.size(), 2u) << algo;
    const json& info = results.back()["info"];
    EXPECT_EQ(results.back()["timesteps_total"], 400) << algo;
    EXPECT_EQ(info["num_steps_trained"], 32 * (400 - 100)) << algo;
    EXPECT_EQ(info["num_target_updates"], 400) << algo;
    EXPECT_TRUE(info["learner"]["default_policy"].contains("critic_loss")) << algo;
    ASSERT_TRUE(fs::exists(trial + "/checkpoint_2/policy.pt")) << algo;
    auto rollout = Rllib("rollout " + trial + "/checkpoint_2 --run " + algo + " --env Pendulum-v1 --episodes 1");
    ASSERT_EQ(rollout.code, 0) << algo << ": " << rollout.err;
    EXPECT_NE(rollout.out.find("Episode #1: reward:"), std::string::npos) << rollout.out;
  }
  auto discrete = Rllib("train --run SAC --env CartPole-v1 --local-dir " + dir_);
  EXPECT_NE(discrete.code, 0);
  EXPECT_NE(discrete.err.find("SAC needs a Box action space"), std::string::npos) << discrete.err;
  auto lr = Rllib("train --run TD3 --env Pendulum-v1 --config '{\"lr\": 0.1}' --local-dir " + dir_);
  EXPECT_NE(lr.code, 0);
  EXPECT_NE(lr.err.find("'lr' is not used by DDPG"), std::string::npos) << lr.err;
}

// A rollout worker killed during training is replaced, and the restart is counted.
TEST_F(RllibTest, AKilledRolloutWorkerIsReplaced) {
  auto results = TrainAndKillAWorker("recreate_failed_workers");
  ASSERT_FALSE(results.empty());
  EXPECT_EQ(results.back()["training_iteration"], 40);
  EXPECT_GE(results.back()["num_remote_worker_restarts"].get<int>(), 1) << Slurp(dir_ + "/out");
}

// The asynchronous optimizers replace lost workers too (here IMPALA's).
TEST_F(RllibTest, AKilledIMPALARolloutWorkerIsReplaced) {
  auto results = TrainAndKillAWorker("recreate_failed_workers", "IMPALA", {{"min_iter_time_s", 0.1}});
  ASSERT_FALSE(results.empty());
  EXPECT_EQ(results.back()["training_iteration"], 40);
  EXPECT_GE(results.back()["num_remote_worker_restarts"].get<int>(), 1) << Slurp(dir_ + "/out");
  EXPECT_EQ(results.back()["num_healthy_workers"], 2);
}

// With ignore_worker_failures, training goes on with the workers that are left.
TEST_F(RllibTest, AKilledRolloutWorkerIsDroppedWithIgnoreWorkerFailures) {
  auto results = TrainAndKillAWorker("ignore_worker_failures");
  ASSERT_FALSE(results.empty());
  EXPECT_EQ(results.back()["training_iteration"], 40);
  EXPECT_EQ(results.back()["num_healthy_workers"], 1) << Slurp(dir_ + "/out");
  EXPECT_EQ(results.back()["num_remote_worker_restarts"], 0);
}

// `tune run` searches over PPO: each trial holds the trainer's CPU and its workers'
// (the trainer's DefaultResourceRequest), so trials never starve their own workers.
TEST_F(RllibTest, TuneRunSearchesOverPpoConfigs) {
  std::string tune = fs::path(RAY_BINARY).parent_path() / "tune";
  std::string cmd = "timeout 120 " + tune + " run " + fs::path(RAY_BINARY).parent_path().parent_path().string() +
                    "/algorithms/ppo/ppo.so --run PPO --name search --num-cpus 2 --temp-dir " + dir_ +
                    " --local-dir " + dir_ + "/results --config '{\"env\": \"CartPole-v1\", "
                    "\"lr\": {\"grid_search\": [0.001, 0.003]}, \"num_workers\": 1, \"num_sgd_iter\": 2, "
                    "\"train_batch_size\": 400, \"model\": {\"fcnet_hiddens\": [16]}}' "
                    "--stop '{\"training_iteration\": 2}' >" + dir_ + "/out 2>" + dir_ + "/err";
  int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << Slurp(dir_ + "/err");
  auto state = json::parse(Slurp(dir_ + "/results/search/experiment_state.json"));
  ASSERT_EQ(state["trials"].size(), 2u);
  for (const auto& t : state["trials"]) {
    EXPECT_EQ(t["status"], "TERMINATED");
    EXPECT_EQ(t["resources"], json({{"CPU", 1.0}, {"extra_CPU", 1.0}}));
  }
}

// A user env from a plugin of its own trains like a builtin one.
TEST_F(RllibTest, AnEnvFromAPluginTrains) {
  std::string plugin = std::string(RAY_EXAMPLES_DIR) + "/reach_target_env.so";
  auto r = Rllib("train --run PPO --env ReachTarget-v0 --env-plugin " + plugin +
                 " --stop '{\"training_iteration\": 10}' --config '{\"num_workers\": 1, "
                 "\"num_envs_per_worker\": 4, \"train_batch_size\": 2000, \"sgd_minibatch_size\": 250, "
                 "\"num_sgd_iter\": 10, \"lr\": 0.001, \"gamma\": 0.9, \"seed\": 1, "
                 "\"model\": {\"fcnet_hiddens\": [32, 32]}}' --local-dir " + dir_ + "/results");
  ASSERT_EQ(r.code, 0) << r.err;
  auto results = Results(TrialDir("default"));
  ASSERT_EQ(results.size(), 10u);
  double first = results.front()["episode_reward_mean"], last = results.back()["episode_reward_mean"];
  EXPECT_GT(last, first / 2) << "PPO should learn to reach the target: " << first << " -> " << last;

  auto bad = Rllib("train --run PPO --env ReachTarget-v0 --env-plugin /nonexistent/envs.so "
                   "--stop '{\"training_iteration\": 1}' --local-dir " + dir_ + "/results");
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.err.find("/nonexistent/envs.so"), std::string::npos) << bad.err;
}

// COMMON_CONFIG end to end, on an env plugin that records what its factory got and
// a callbacks plugin: env_config reaches every env copy with its worker and vector
// index, `horizon` cuts episodes (and resets the env), MeanStdFilter statistics are
// merged from the rollout workers each iteration and saved in checkpoints (which
// `rllib rollout` restores), callbacks report custom metrics and change the result,
// and evaluation runs every evaluation_interval iterations under evaluation_config.
TEST_F(RllibTest, CommonConfigKeysWorkEndToEnd) {
  fs::create_directories(dir_ + "/rec");
  json config = {{"num_workers", 2}, {"num_envs_per_worker", 2}, {"sample_batch_size", 20},
                 {"train_batch_size", 160}, {"model", {{"fcnet_hiddens", {8}}}},
                 {"env_config", {{"record_dir", dir_ + "/rec"}, {"episode_len", 10}, {"reward", 3}}},
                 {"horizon", 5}, {"observation_filter", "MeanStdFilter"}, {"callbacks", TEST_CALLBACKS_PLUGIN},
                 {"evaluation_interval", 2}, {"evaluation_num_episodes", 3},
                 {"evaluation_config", {{"env_config", {{"reward", 2}}}}}};
  auto r = Rllib("train --run PG --env Counter-v0 --env-plugin " + std::string(COUNTER_ENV_PLUGIN) +
                 " --stop '{\"training_iteration\": 2}' --config '" + config.dump() +
                 "' --checkpoint-at-end --local-dir " + dir_ + "/results");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* copy : {"w0_v0", "w0_v1", "w1_v0", "w1_v1", "w2_v0", "w2_v1"}) {
    std::ifstream in(dir_ + "/rec/" + copy + ".json");
    ASSERT_TRUE(in) << copy << " was never made";
    json got = json::parse(in);
    EXPECT_EQ(got["config"]["episode_len"], 10) << copy;
    if (got["worker_index"] != 0) EXPECT_EQ(got["config"]["reward"], 3) << copy;
  }
  const std::string trial = TrialDir("default");
  auto results = Results(trial);
  ASSERT_EQ(results.size(), 2u);
  for (size_t i = 0; i < results.size(); ++i) {
    const json& x = results[i];
    EXPECT_EQ(x["episode_len_mean"], 5.0) << "horizon 5 cuts the 10-step episodes";
    EXPECT_EQ(x["episode_reward_mean"], 15.0);
    EXPECT_EQ(x["custom_metrics"]["last_obs_mean"], 5.0) << "the env was reset at each cut";
    EXPECT_EQ(x["custom_metrics"]["worker_index_min"], 1.0);
    EXPECT_EQ(x["custom_metrics"]["worker_index_max"], 2.0);
    EXPECT_EQ(x["callbacks_train_results"], i + 1) << "on_train_result changed the result";
    // on_postprocess_traj saw each 5-step episode after PG's postprocessing: the first
    // advantage is the discounted return 3 * (1 + 0.99 + ... + 0.99^4).
    EXPECT_EQ(x["custom_metrics"]["traj_rows_mean"], 5.0);
    EXPECT_NEAR(x["custom_metrics"]["first_advantage_mean"].get<double>(), 14.70297, 1e-3);
  }
  EXPECT_FALSE(results[0].contains("evaluation")) << "every 2nd iteration only";
  const json& eval = results[1]["evaluation"];
  EXPECT_EQ(eval["episode_reward_mean"], 10.0) << "evaluation_config's env_config (reward 2): " << eval;
  EXPECT_GE(eval["episodes_this_iter"].get<int>(), 3);
  EXPECT_EQ(eval["custom_metrics"]["worker_index_mean"], 0.0) << "the trainer's evaluation worker";
  const std::string csv = Slurp(trial + "/progress.csv");
  EXPECT_NE(csv.find("custom_metrics/last_obs_mean"), std::string::npos);
  // The learner's filter holds every observation the workers saw.
  json filters = json::parse(Slurp(trial + "/checkpoint_2/filters.json"));
  EXPECT_GE(filters["default_policy"]["n"].get<int64_t>(), 320) << filters;
  auto rollout = Rllib("rollout " + trial + "/checkpoint_2 --run PG --env Counter-v0 --episodes 2");
  ASSERT_EQ(rollout.code, 0) << rollout.err;
  EXPECT_NE(rollout.out.find("Episode #2: reward: 30.0"), std::string::npos) << rollout.out;
}

// ES and ARS train on rollout actors (CartPole-v1; ES also on Pendulum-v1's Box
// actions), report RLlib's result keys, write checkpoints (flat weights, Adam's or SGD's
// state, the filter) that `rllib rollout` restores, and refuse keys they do not use by
// name.
TEST_F(RllibTest, ESAndARSTrainCheckpointAndRollOut) {
  for (const std::string algo : {"ES", "ARS"}) {
    const std::string batch = algo == "ES" ? "\"episodes_per_batch\": 8, \"train_batch_size\": 100"
                                           : "\"num_rollouts\": 8, \"rollouts_used\": 4";
    auto r = Rllib("train --run " + algo + " --env CartPole-v1 --stop '{\"training_iteration\": 3}' --config '{" +
                   batch + ", \"num_workers\": 2, \"noise_size\": 100000, \"eval_prob\": 0.5, \"seed\": 1, "
                   "\"model\": {\"fcnet_hiddens\": [8]}}' --checkpoint-at-end --local-dir " + dir_ +
                   "/results --experiment-name " + algo);
    ASSERT_EQ(r.code, 0) << algo << ": " << r.err;
    const std::string trial = TrialDir(algo);
    ASSERT_NE(trial.find(algo + "_CartPole-v1_"), std::string::npos) << trial;
    auto results = Results(trial);
    ASSERT_EQ(results.size(), 3u) << algo;
    const json& last = results.back();
    for (const char* key : {"episode_reward_mean", "episode_reward_min", "episode_reward_max", "episode_len_mean",
                            "episodes_this_iter", "timesteps_total", "time_total_s", "config"}) {
      EXPECT_TRUE(last.contains(key)) << algo << ": " << key;
    }
    EXPECT_GE(last["episodes_this_iter"].get<int>(), 8) << algo;
    EXPECT_EQ(last["config"]["num_workers"], 2) << algo;
    EXPECT_EQ(last["num_healthy_workers"], 2) << algo;
    EXPECT_EQ(last["info"]["noise_table"]["floats"], 100000) << algo;
    EXPECT_GT(last["info"]["num_steps_sampled"].get<int64_t>(), 0) << algo;
    EXPECT_EQ(last["timesteps_total"], last["info"]["num_steps_sampled"]) << algo;
    ASSERT_TRUE(fs::exists(trial + "/checkpoint_3/evolution_state.json")) << algo;
    ASSERT_TRUE(fs::exists(trial + "/checkpoint_3/filters.json")) << algo << ": MeanStdFilter is the default";
    auto rollout = Rllib("rollout " + trial + "/checkpoint_3 --run " + algo + " --env CartPole-v1 --episodes 2");
    ASSERT_EQ(rollout.code, 0) << algo << ": " << rollout.err;
    EXPECT_NE(rollout.out.find("Episode #2: reward:"), std::string::npos) << rollout.out;
  }
  auto box = Rllib("train --run ES --env Pendulum-v1 --stop '{\"training_iteration\": 1}' --config "
                   "'{\"episodes_per_batch\": 4, \"train_batch_size\": 0, \"num_workers\": 1, \"noise_size\": 100000, \"eval_prob\": 0, "
                   "\"model\": {\"fcnet_hiddens\": [8]}}' --local-dir " + dir_ + "/results --experiment-name box");
  ASSERT_EQ(box.code, 0) << box.err;
  EXPECT_EQ(Results(TrialDir("box")).back()["timesteps_total"], 4 * 200) << "Pendulum-v1 episodes are 200 steps";

  auto lr = Rllib("train --run ES --env CartPole-v1 --config '{\"lr\": 0.1}' --local-dir " + dir_);
  EXPECT_NE(lr.code, 0);
  EXPECT_NE(lr.err.find("unknown config key 'lr'"), std::string::npos) << lr.err;
  auto other = Rllib("train --run ARS --env CartPole-v1 --config '{\"stepsize\": 0.1}' --local-dir " + dir_);
  EXPECT_NE(other.code, 0);
  EXPECT_NE(other.err.find("unknown config key 'stepsize'"), std::string::npos) << other.err;
  auto workers = Rllib("train --run ARS --env CartPole-v1 --config '{\"num_workers\": 0}' --local-dir " + dir_);
  EXPECT_NE(workers.code, 0);
  EXPECT_NE(workers.err.find("'num_workers' must be >= 1"), std::string::npos) << workers.err;
  auto small = Rllib("train --run ES --env CartPole-v1 --config '{\"noise_size\": 10, \"num_workers\": 1}' "
                     "--local-dir " + dir_);
  EXPECT_NE(small.code, 0);
  EXPECT_NE(small.err.find("'noise_size' (10) must be at least the policy's parameter count"), std::string::npos)
      << small.err;
}

// The noise table is put in the object store once and shared: while ES trains with two
// rollout actors, the object directory (`ray list objects`) holds exactly one object
// the size of the table, the one the trainer reports, and still that one object
// iterations later.
TEST_F(RllibTest, ESPutsItsNoiseTableInTheObjectStoreOnce) {
  std::string rllib = fs::path(RAY_BINARY).parent_path() / "rllib";
  constexpr int64_t kFloats = 4000000;  // 16 MB
  std::string cmd = "(timeout 120 " + rllib + " train --run ES --env CartPole-v1 --stop '{\"time_total_s\": 4}' " +
                    "--config '{\"num_workers\": 2, \"noise_size\": " + std::to_string(kFloats) +
                    ", \"episodes_per_batch\": 4, \"train_batch_size\": 0, \"model\": {\"fcnet_hiddens\": [8]}}' " +
                    "--local-dir " + dir_ + "/results --temp-dir " + dir_ + " >" + dir_ + "/out 2>" + dir_ +
                    "/err; echo $? >" + dir_ + "/code) &";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  auto results = [&] {
    std::string trial = fs::exists(dir_ + "/results/default") ? TrialDir("default") : "";
    return trial.empty() ? std::vector<json>{} : Results(trial);
  };
  // The objects of at least the table's size in the directory, by id.
  auto big_objects = [&] {
    std::string out = dir_ + "/objects.json";
    std::string list = RAY_BINARY + std::string(" list objects --json --temp-dir ") + dir_ + " >" + out + " 2>/dev/null";
    std::vector<std::string> ids;
    if (std::system(list.c_str()) != 0) return ids;
    json rows = json::parse(Slurp(out), nullptr, false);
    if (!rows.is_array()) return ids;
    for (const json& row : rows) {
      if (row["size"].get<int64_t>() >= kFloats * 4) ids.push_back(row["object_id"].get<std::string>());
    }
    return ids;
  };
  std::vector<std::string> first, later;
  std::string reported;
  size_t first_results = 0;
  for (int i = 0; i < 600 && !fs::exists(dir_ + "/code"); ++i) {
    auto r = results();
    if (!r.empty()) {
      std::vector<std::string> now = big_objects();
      if (!fs::exists(dir_ + "/code") && !now.empty()) {  // still running: the listing is live
        if (first.empty()) {
          first = now;
          reported = r.back()["info"]["noise_table"]["object_id"];
          first_results = r.size();
        } else if (r.size() >= first_results + 3) {
          later = now;
          break;
        }
      }
    }
    usleep(100000);
  }
  for (int i = 0; i < 1200 && !fs::exists(dir_ + "/code"); ++i) usleep(100000);
  EXPECT_EQ(Slurp(dir_ + "/code"), "0\n") << Slurp(dir_ + "/err");
  ASSERT_EQ(first.size(), 1u) << "one object the size of the noise table while training";
  EXPECT_EQ(first[0], reported);
  ASSERT_EQ(later.size(), 1u) << "three iterations later";
  EXPECT_EQ(later[0], first[0]) << "never put again";
}

// With -f, the flags given beside the file win over its keys and each is reported;
// --run (which the file names) is refused.
TEST_F(RllibTest, FlagsGivenWithAFileOverrideItAndSaySo) {
  std::ofstream(dir_ + "/exp.yaml") << "exp:\n  run: PG\n  env: CartPole-v1\n"
                                       "  stop: {training_iteration: 50}\n"
                                       "  config: {num_workers: 0, lr: 0.0004, train_batch_size: 200,\n"
                                       "           model: {fcnet_hiddens: [8]}}\n";
  auto r = Rllib("train -f " + dir_ + "/exp.yaml --stop '{\"training_iteration\": 1}' --config '{\"lr\": 0.01}' "
                 "--local-dir " + dir_ + "/results");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("--stop sets exp.stop to {\"training_iteration\": 1} (" + dir_ +
                       "/exp.yaml has {\"training_iteration\":50})"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--config sets exp.config.lr to 0.01"), std::string::npos) << r.err;
  auto results = Results(TrialDir("exp"));
  ASSERT_EQ(results.size(), 1u) << "the flag's stop, not the file's";
  EXPECT_EQ(results[0]["config"]["lr"], 0.01);
  EXPECT_EQ(results[0]["config"]["train_batch_size"], 200) << "the file's other keys stay";

  auto run = Rllib("train -f " + dir_ + "/exp.yaml --run PPO");
  EXPECT_NE(run.code, 0);
  EXPECT_NE(run.err.find("--run cannot be used with -f"), std::string::npos) << run.err;
}

// `rllib train --address` trains on a running cluster (`ray start --head`): the
// trial's trainer and rollout worker are the cluster's actors. The token comes from
// the file $RAY_CLUSTER_TOKEN_FILE names, so it is in no command line; rllib's own
// --temp-dir holds no session, so nothing else could supply it.
TEST_F(RllibTest, TrainsOnARunningClusterThroughAddress) {
  const std::string ray = RAY_BINARY, head = dir_ + "/head";
  auto sh = [&](const std::string& cmd) {
    int status = std::system(("timeout 60 " + cmd + " >" + dir_ + "/sh.out 2>" + dir_ + "/sh.err").c_str());
    return Output{WIFEXITED(status) ? WEXITSTATUS(status) : -1, Slurp(dir_ + "/sh.out"), Slurp(dir_ + "/sh.err")};
  };
  auto started = sh(ray + " start --head --port 0 --num-cpus 2 --include-webui false --temp-dir " + head);
  ASSERT_EQ(started.code, 0) << started.err;
  struct Stop {
    std::function<void()> fn;
    ~Stop() { fn(); }
  } stop{[&] { sh(ray + " stop --temp-dir " + head); }};
  auto status = sh(ray + " status --json --temp-dir " + head);
  ASSERT_EQ(status.code, 0) << status.err;
  const std::string address = json::parse(status.out)["address"];
  const std::string token_file = head + "/session_latest/token";
  const std::string train = "train --address " + address + " --run PG --env CartPole-v1 --stop "
                            "'{\"training_iteration\": 2}' --config '{\"num_workers\": 1, \"train_batch_size\": 200, "
                            "\"model\": {\"fcnet_hiddens\": [8]}}' --local-dir " + dir_ + "/results";
  auto r = Rllib(train, 120, "RAY_CLUSTER_TOKEN_FILE=" + token_file);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(Results(TrialDir("default")).size(), 2u);
  EXPECT_EQ(r.out.find(Slurp(token_file)), std::string::npos) << "the token is not printed";
  // (The raylet records actors in the GCS in batches, at the latest once it has seen
  // the job end: the list may lag rllib's exit by a moment.)
  Output actors{};
  for (int i = 0; i < 100; ++i) {
    actors = sh(ray + " list actors --json --temp-dir " + head);
    ASSERT_EQ(actors.code, 0) << actors.err;
    if (json::parse(actors.out).size() >= 2u) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_GE(json::parse(actors.out).size(), 2u) << "the trainer and its rollout worker: " << actors.out;

  std::ofstream(dir_ + "/wrong_token") << "0123\n";
  auto wrong = Rllib(train, 60, "RAY_CLUSTER_TOKEN_FILE=" + dir_ + "/wrong_token");
  EXPECT_NE(wrong.code, 0);
  EXPECT_NE(wrong.err.find("token"), std::string::npos) << wrong.err;
  auto none = Rllib(train, 60);
  EXPECT_NE(none.code, 0);
  EXPECT_NE(none.err.find("--token"), std::string::npos) << none.err;
  auto sized = Rllib(train + " --num-cpus 4", 60, "RAY_CLUSTER_TOKEN_FILE=" + token_file);
  EXPECT_NE(sized.code, 0);
  EXPECT_NE(sized.err.find("--num-cpus sizes the local cluster"), std::string::npos) << sized.err;
}

// model.use_lstm: the tuned example learns a memory task (repeat the previous token)
// on seeds 1, 2 and 3, and the same config without the LSTM does not; `rllib rollout`
// runs a recurrent checkpoint, its env and config read from the trial's params.json.
TEST_F(RllibTest, AnLstmLearnsAMemoryTaskThatAFullyConnectedNetCannot) {
  const std::string train = std::string("train -f ") + RAY_SOURCE_DIR +
                            "/share/tuned_examples/repeatafterme-ppo-lstm.yaml --env-plugin " +
                            RAY_EXAMPLES_DIR + "/repeat_after_me_env.so --local-dir " + dir_;
  auto lstm = Rllib(train + "/lstm --checkpoint-at-end --config '{\"seed\": {\"grid_search\": [1, 2, 3]}}'", 240);
  ASSERT_EQ(lstm.code, 0) << lstm.err;
  auto plain = Rllib(train + "/plain --stop '{\"timesteps_total\": 30000}' --config "
                     "'{\"seed\": {\"grid_search\": [1, 2, 3]}, \"model\": {\"fcnet_hiddens\": [32]}}'", 240);
  ASSERT_EQ(plain.code, 0) << plain.err;
  std::string checkpoint;
  for (const std::string variant : {"lstm", "plain"}) {
    const bool learns = variant == "lstm";
    int trials = 0;
    for (const auto& e : fs::directory_iterator(dir_ + "/" + variant + "/repeatafterme-ppo-lstm")) {
      if (!e.is_directory()) continue;
      ++trials;
      auto results = Results(e.path());
      ASSERT_FALSE(results.empty()) << e.path();
      const json& last = results.back();
      const double reward = last["episode_reward_mean"].get<double>();
      EXPECT_EQ(last["config"]["model"]["use_lstm"], learns) << e.path();
      if (learns) {
        EXPECT_GE(reward, 95.0) << e.path() << ": " << lstm.out;
        EXPECT_LE(last["timesteps_total"].get<int64_t>(), 100000) << e.path();
        checkpoint = (e.path() / ("checkpoint_" + std::to_string(results.size()))).string();
      } else {
        EXPECT_LE(reward, 10.0) << e.path() << ": " << plain.out;
        EXPECT_GE(last["timesteps_total"].get<int64_t>(), 30000) << e.path();
      }
    }
    EXPECT_EQ(trials, 3) << variant;
  }
  auto rollout = Rllib("rollout " + checkpoint + " --run PPO --episodes 3");
  ASSERT_EQ(rollout.code, 0) << rollout.err;
  EXPECT_NE(rollout.out.find("3 episodes, mean reward"), std::string::npos) << rollout.out;
  const size_t at = rollout.out.find("mean reward ");
  ASSERT_NE(at, std::string::npos);
  EXPECT_GE(std::stod(rollout.out.substr(at + 12)), 90.0) << rollout.out;
}

// model.custom_model: a recurrent model from a model plugin (the example GRU) is what
// PPO learns the memory task with, through `rllib train --model-plugin`.
TEST_F(RllibTest, ACustomModelFromAPluginLearnsTheMemoryTask) {
  auto r = Rllib(std::string("train -f ") + RAY_SOURCE_DIR + "/share/tuned_examples/repeatafterme-ppo-lstm.yaml"
                 " --env-plugin " + RAY_EXAMPLES_DIR + "/repeat_after_me_env.so --model-plugin " +
                 RAY_EXAMPLES_DIR + "/custom_models.so --config '{\"seed\": 1, \"model\": {\"custom_model\": "
                 "\"gru\", \"custom_options\": {\"width\": 32}}}' --local-dir " + dir_ + "/results", 240);
  ASSERT_EQ(r.code, 0) << r.err;
  auto results = Results(TrialDir("repeatafterme-ppo-lstm"));
  ASSERT_FALSE(results.empty());
  const json& last = results.back();
  EXPECT_EQ(last["config"]["model"]["custom_model"], "gru");
  EXPECT_EQ(last["config"]["model"]["use_lstm"], false);
  EXPECT_GE(last["episode_reward_mean"].get<double>(), 95.0) << r.out;
  EXPECT_LE(last["timesteps_total"].get<int64_t>(), 100000);

  auto unknown = Rllib("train --run PPO --env CartPole-v1 --model-plugin " + std::string(RAY_EXAMPLES_DIR) +
                       "/custom_models.so --stop '{\"training_iteration\": 1}' --config "
                       "'{\"model\": {\"custom_model\": \"nope\"}}' --local-dir " + dir_ + "/unknown");
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.err.find("custom model 'nope' is not registered"), std::string::npos) << unknown.err;
}

// Dict and Tuple observations from an env plugin reach the model flattened (the sign
// one-hot): PPO learns the signed corridor from a Dict, ES from a Tuple, and a policy
// that read only the position could not pass 0 on average. `rllib rollout` flattens
// them the same way.
TEST_F(RllibTest, DictAndTupleObservationsAreFlattenedForTheModel) {
  const std::string plugin = std::string(" --env-plugin ") + RAY_EXAMPLES_DIR + "/signed_corridor_env.so";
  auto ppo = Rllib("train --run PPO --env SignedCorridor-v0" + plugin +
                       " --stop '{\"episode_reward_mean\": 0.9, \"training_iteration\": 20}' --checkpoint-at-end"
                       " --config '{\"seed\": 1}' --local-dir " + dir_ + "/results",
                   180);
  ASSERT_EQ(ppo.code, 0) << ppo.err;
  auto results = Results(TrialDir("default"));
  ASSERT_FALSE(results.empty());
  EXPECT_GE(results.back()["episode_reward_mean"].get<double>(), 0.9) << ppo.out;
  const std::string checkpoint =
      (fs::path(TrialDir("default")) / ("checkpoint_" + std::to_string(results.size()))).string();
  auto rollout = Rllib("rollout " + checkpoint + " --run PPO --episodes 20");
  ASSERT_EQ(rollout.code, 0) << rollout.err;
  const size_t at = rollout.out.find("mean reward ");
  ASSERT_NE(at, std::string::npos) << rollout.out;
  EXPECT_GE(std::stod(rollout.out.substr(at + 12)), 0.9) << rollout.out;

  auto es = Rllib("train --run ES --env SignedCorridorTuple-v0" + plugin +
                      " --stop '{\"episode_reward_mean\": 0.9, \"training_iteration\": 20}'"
                      " --config '{\"seed\": 1, \"num_workers\": 1}' --local-dir " + dir_ + "/es",
                  180);
  ASSERT_EQ(es.code, 0) << es.err;
  bool found = false;
  for (const auto& e : fs::recursive_directory_iterator(dir_ + "/es")) {
    if (e.path().filename() != "result.json") continue;
    found = true;
    auto es_results = Results(e.path().parent_path().string());
    ASSERT_FALSE(es_results.empty());
    EXPECT_GE(es_results.back()["episode_reward_mean"].get<double>(), 0.9) << es.out;
  }
  EXPECT_TRUE(found) << es.out;
}

// The flagship: the tuned example solves CartPole-v1 within 100k environment steps.
TEST_F(RllibTest, TunedCartPoleExampleSolvesIt) {
  auto r = Rllib(std::string("train -f ") + RAY_SOURCE_DIR +
                     "/share/tuned_examples/cartpole-ppo.yaml --local-dir " + dir_ + "/results",
                 300);
  ASSERT_EQ(r.code, 0) << r.err;
  auto results = Results(TrialDir("cartpole-ppo"));
  ASSERT_FALSE(results.empty());
  const json& last = results.back();
  EXPECT_GE(last["episode_reward_mean"].get<double>(), 475.0) << r.out;
  EXPECT_LE(last["timesteps_total"].get<int64_t>(), 100000);
}

// The tuned PG and A2C examples solve CartPole-v1 (475) within RLlib's 500k budget
// (seed 1; tests/bench/rllib_learning_bench.sh runs 3 seeds).
TEST_F(RllibTest, TunedCartPolePGAndA2CExamplesSolveIt) {
  for (const std::string name : {"cartpole-pg", "cartpole-a2c"}) {
    auto r = Rllib(std::string("train -f ") + RAY_SOURCE_DIR + "/share/tuned_examples/" + name +
                       ".yaml --local-dir " + dir_ + "/results",
                   300);
    ASSERT_EQ(r.code, 0) << name << ": " << r.err;
    auto results = Results(TrialDir(name));
    ASSERT_FALSE(results.empty()) << name;
    const json& last = results.back();
    EXPECT_GE(last["episode_reward_mean"].get<double>(), 475.0) << name << ": " << r.out;
    EXPECT_LE(last["timesteps_total"].get<int64_t>(), 500000) << name;
  }
}

// Short runs of a tuned example (its stop values replaced) on seeds 1, 2 and 3 (a
// grid search, one Tune run) each reach `reward` within `steps` env steps; a policy
// that does not learn averages about 22 on CartPole.
class TunedShortRun : public RllibTest {
 protected:
  // The tuned example `name` on seeds 1, 2 and 3, its stop set to `reward` in
  // `stop_key` or `steps` env steps (lower than the file's for a short run, the same
  // for its full target); expects every seed to reach `reward`.
  void ExpectLearns(const std::string& name, double reward, int64_t steps,
                    const std::string& stop_key = "episode_reward_mean") {
    std::string yaml = Slurp(std::string(RAY_SOURCE_DIR) + "/share/tuned_examples/" + name + ".yaml");
    auto replace = [&](const std::string& pattern, const std::string& to) {
      const std::regex re(pattern);
      ASSERT_TRUE(std::regex_search(yaml, re)) << name << " has no match for '" << pattern << "'";
      yaml = std::regex_replace(yaml, re, to, std::regex_constants::format_first_only);
    };
    replace("\n( +)" + stop_key + ": [-0-9.]+\n", "\n$1" + stop_key + ": " + std::to_string(reward) + "\n");
    replace("\n( +)timesteps_total: [0-9]+\n", "\n$1timesteps_total: " + std::to_string(steps) + "\n");
    replace("\n( +)seed: 1\n", "\n$1seed: {grid_search: [1, 2, 3]}\n");
    std::ofstream(dir_ + "/short.yaml") << yaml;
    auto r = Rllib("train -f " + dir_ + "/short.yaml --local-dir " + dir_ + "/results", 240);
    ASSERT_EQ(r.code, 0) << name << ": " << r.err;
    int trials = 0;
    for (const auto& e : fs::directory_iterator(dir_ + "/results/" + name)) {
      if (!e.is_directory()) continue;
      ++trials;
      auto results = Results(e.path());
      ASSERT_FALSE(results.empty()) << e.path();
      const json& last = results.back();
      const json::json_pointer field("/" + stop_key);
      ASSERT_TRUE(last.contains(field)) << e.path() << " has no " << stop_key;
      EXPECT_GE(last[field].get<double>(), reward) << e.path() << ": " << r.out;
      EXPECT_LE(last["timesteps_total"].get<int64_t>(), steps + 4000) << e.path();
    }
    EXPECT_EQ(trials, 3) << r.out;
  }
};

// A3C applies each gradient as it arrives, so a seed's run varies with the timing of
// its two workers: of 195 seeded runs of this short example measured on a 2-core
// machine (51 with a build running beside them), 91% reached 200 within 50k steps; the
// others plateaued first, the slowest reaching it at 132k.
TEST_F(TunedShortRun, A3CLearnsCartPole) { ExpectLearns("cartpole-a3c", 200, 150000); }
TEST_F(TunedShortRun, IMPALALearnsCartPole) { ExpectLearns("cartpole-impala", 150, 100000); }
TEST_F(TunedShortRun, APPOLearnsCartPole) { ExpectLearns("cartpole-appo", 150, 100000); }
TEST_F(TunedShortRun, RainbowDQNLearnsCartPole) {
  ExpectLearns("cartpole-rainbow", 150, 15000, "evaluation/episode_reward_mean");
}
TEST_F(TunedShortRun, ApexDQNLearnsCartPole) { ExpectLearns("cartpole-apex", 150, 60000); }
// Issue #16's targets themselves, read from the greedy evaluation: DQN's mean of 475
// over 100 episodes within 50k steps, SAC's -150 within 20k.
TEST_F(TunedShortRun, DQNSolvesCartPoleWithin50kSteps) {
  ExpectLearns("cartpole-dqn", 475, 50000, "evaluation/episode_reward_mean");
}
TEST_F(TunedShortRun, SACReachesMinus150OnPendulumWithin20kSteps) {
  ExpectLearns("pendulum-sac", -150, 20000, "evaluation/episode_reward_mean");
}

// The tuned Pendulum example swings up and balances: -200 within 200k steps.
TEST_F(RllibTest, TunedPendulumExampleReachesMinus200) {
  auto r = Rllib(std::string("train -f ") + RAY_SOURCE_DIR +
                     "/share/tuned_examples/pendulum-ppo.yaml --local-dir " + dir_ + "/results",
                 300);
  ASSERT_EQ(r.code, 0) << r.err;
  auto results = Results(TrialDir("pendulum-ppo"));
  ASSERT_FALSE(results.empty());
  const json& last = results.back();
  EXPECT_GE(last["episode_reward_mean"].get<double>(), -200.0) << r.out;
  EXPECT_LT(last["timesteps_total"].get<int64_t>(), 200000);
}

// The tuned Ape-X DDPG example reaches DDPG's target, -200 within 50k steps, on
// seeds 1, 2 and 3 (a grid search, one Tune run).
TEST_F(RllibTest, TunedApexDDPGExampleReachesMinus200) {
  auto r = Rllib(std::string("train -f ") + RAY_SOURCE_DIR +
                     "/share/tuned_examples/pendulum-apex-ddpg.yaml --config '{\"seed\": {\"grid_search\": "
                     "[1, 2, 3]}}' --local-dir " + dir_ + "/results",
                 300);
  ASSERT_EQ(r.code, 0) << r.err;
  int trials = 0;
  for (const auto& e : fs::directory_iterator(dir_ + "/results/pendulum-apex-ddpg")) {
    if (!e.is_directory()) continue;
    ++trials;
    auto results = Results(e.path());
    ASSERT_FALSE(results.empty()) << e.path();
    const json& last = results.back();
    EXPECT_GE(last["episode_reward_mean"].get<double>(), -200.0) << e.path() << ": " << r.out;
    EXPECT_LE(last["timesteps_total"].get<int64_t>(), 50000) << e.path();
  }
  EXPECT_EQ(trials, 3) << r.out;
}

}  // namespace
