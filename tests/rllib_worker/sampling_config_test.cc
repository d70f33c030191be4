// The COMMON_CONFIG keys a rollout worker applies while sampling: horizon and
// soft_horizon, clip_rewards, env_config with the worker and vector index,
// observation_filter and callbacks. On the Counter-v0 env plugin (observation: steps
// since reset), with a scripted policy.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "runtime/rllib/rollout_worker.h"
#include "tests/rllib_worker/scripted_policy.h"

namespace ray::rllib {
namespace {

namespace fs = std::filesystem;

struct Made {
  std::unique_ptr<RolloutWorker> worker;
  ScriptedPolicy* policy = nullptr;
};

// A worker on Counter-v0 (episodes of `episode_len` steps unless env_config says).
Made MakeWorker(CommonConfig c, int worker_index = 1) {
  c.env_plugin = COUNTER_ENV_PLUGIN;
  if (!c.env_config.contains("episode_len")) c.env_config["episode_len"] = 10;
  Made m;
  auto w = RolloutWorker::Create("Counter-v0", c, worker_index,
                                 [&m](const PolicySpec& spec, std::optional<int64_t>) -> Result<std::unique_ptr<Policy>> {
                                   auto p = std::make_unique<ScriptedPolicy>(spec);
                                   m.policy = p.get();
                                   return std::unique_ptr<Policy>(std::move(p));
                                 });
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  if (w.ok()) m.worker = std::move(w).value();
  return m;
}

CommonConfig Small(int64_t sample_batch_size) {
  CommonConfig c;
  c.num_envs_per_worker = 1;
  c.sample_batch_size = sample_batch_size;
  return c;
}

TEST(SamplingConfigTest, HorizonCutsEpisodesAndResetsTheEnv) {
  CommonConfig c = Small(12);
  c.horizon = 4;
  Made m = MakeWorker(c);
  auto r = m.worker->Sample();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->episode_lengths, (std::vector<int64_t>{4, 4, 4}));
  EXPECT_EQ(r->batch.obs, (std::vector<float>{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3}));
  for (int64_t i = 0; i < r->batch.size(); ++i) {
    EXPECT_EQ(r->batch.truncateds[i], i % 4 == 3) << i;
    EXPECT_FALSE(r->batch.terminateds[i]) << i;
  }
  // A cut episode bootstraps from the observation after the cut.
  ASSERT_GE(m.policy->next_observations.size(), 3u);
  EXPECT_EQ(m.policy->next_observations[0], std::vector<float>{4});
}

TEST(SamplingConfigTest, SoftHorizonEndsEpisodesButNotTheEnv) {
  CommonConfig c = Small(12);
  c.horizon = 4;
  c.soft_horizon = true;
  Made m = MakeWorker(c);
  auto r = m.worker->Sample();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // Cut at 4 and 8; the env terminates at 10 and is reset only then.
  EXPECT_EQ(r->episode_lengths, (std::vector<int64_t>{4, 4, 2}));
  EXPECT_EQ(r->batch.obs, (std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 1}));
  EXPECT_TRUE(r->batch.truncateds[3] && r->batch.truncateds[7]);
  EXPECT_TRUE(r->batch.terminateds[9]);
  EXPECT_NE(r->batch.eps_id[3], r->batch.eps_id[4]) << "a new episode after the cut";
  EXPECT_EQ(m.policy->next_observations[0], std::vector<float>{4});
}

TEST(SamplingConfigTest, ClipRewardsClipsWhatIsTrainedOnNotTheReturns) {
  for (auto [clip, want] : {std::pair{RewardClip{true, std::nullopt}, 1.f}, std::pair{RewardClip{false, 2.0}, 2.f},
                            std::pair{RewardClip{}, 3.f}}) {
    CommonConfig c = Small(10);
    c.env_config["reward"] = 3;
    c.clip_rewards = clip;
    Made m = MakeWorker(c);
    auto r = m.worker->Sample();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->batch.rewards, std::vector<float>(10, want));
    EXPECT_EQ(r->episode_returns, std::vector<double>{30}) << "returns are the env's";
  }
}

TEST(SamplingConfigTest, EnvConfigReachesEveryEnvWithItsWorkerAndVectorIndex) {
  const fs::path dir = fs::temp_directory_path() / ("env_config_test_" + std::to_string(getpid()));
  fs::create_directories(dir);
  CommonConfig c = Small(5);
  c.num_envs_per_worker = 2;
  c.env_config = {{"record_dir", dir.string()}, {"episode_len", 7}, {"tags", {1, 2}}, {"on", true}};
  Made m = MakeWorker(c, /*worker_index=*/3);
  for (int v : {0, 1}) {
    std::ifstream in(dir / ("w3_v" + std::to_string(v) + ".json"));
    ASSERT_TRUE(in) << "env copy " << v << " was not made with worker_index 3";
    auto got = nlohmann::json::parse(in);
    EXPECT_EQ(got["worker_index"], 3);
    EXPECT_EQ(got["vector_index"], v);
    EXPECT_EQ(got["config"], c.env_config) << "lists and booleans arrive as written";
  }
  auto r = m.worker->Sample();
  ASSERT_TRUE(r.ok());
  fs::remove_all(dir);
  // A bad value is the env's error, naming the key.
  CommonConfig bad = Small(5);
  bad.env_plugin = COUNTER_ENV_PLUGIN;
  bad.env_config = {{"episode_len", "long"}};
  auto w = RolloutWorker::Create("Counter-v0", bad, 1, [](const PolicySpec& spec, std::optional<int64_t>) {
    return Result<std::unique_ptr<Policy>>(std::unique_ptr<Policy>(std::make_unique<ScriptedPolicy>(spec)));
  });
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("episode_len"), std::string::npos) << w.status().ToString();
}

TEST(SamplingConfigTest, MeanStdFilterNormalisesEveryObservationWithRunningStatistics) {
  CommonConfig c = Small(10);
  c.observation_filter = "MeanStdFilter";
  Made m = MakeWorker(c);
  auto r = m.worker->Sample();
  ASSERT_TRUE(r.ok());
  ASSERT_NE(m.worker->filter(), nullptr);
  // Pushed: the first reset (0), steps 1..9, the episode's last observation (10) and
  // the next episode's first (0).
  EXPECT_EQ(m.worker->filter()->stat().count(), 12);
  EXPECT_NEAR(m.worker->filter()->stat().mean()[0], 55.0 / 12, 1e-9);
  // Row t holds observation t normalised by the statistics of 0..t.
  for (int t = 1; t < 10; ++t) {
    const double want = (t - t / 2.0) / (std::sqrt((t + 1) * (t + 2) / 12.0) + 1e-8);
    EXPECT_NEAR(r->batch.obs[t], want, 1e-5) << t;
  }
  EXPECT_EQ(MakeWorker(Small(10)).worker->filter(), nullptr) << "NoFilter";
}

TEST(SamplingConfigTest, CallbacksSeeEpisodesAndReportCustomMetrics) {
  CommonConfig c = Small(9);
  c.env_config["episode_len"] = 3;
  c.callbacks = TEST_CALLBACKS_PLUGIN;
  Made m = MakeWorker(c, /*worker_index=*/2);
  auto r = m.worker->Sample();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->episode_custom_metrics.size(), 3u);
  for (const auto& metrics : r->episode_custom_metrics) {
    EXPECT_EQ(metrics.at("last_obs"), 3) << "the raw last observation";
    EXPECT_EQ(metrics.at("steps_seen"), 3) << "start and step callbacks, user data kept";
    EXPECT_EQ(metrics.at("worker_index"), 2);
    EXPECT_EQ(metrics.at("traj_rows"), 3) << "on_postprocess_traj saw the episode's trajectory";
    EXPECT_EQ(metrics.at("first_advantage"), 1) << "after the policy's postprocessing";
  }
  // With a horizon, episodes end (and callbacks see them end) at the cut.
  c.horizon = 2;
  auto cut = MakeWorker(c).worker->Sample();
  ASSERT_TRUE(cut.ok());
  EXPECT_EQ(cut->episode_custom_metrics.at(0).at("last_obs"), 2);
}

// on_postprocess_traj runs on every postprocessed trajectory, also on the part of an
// episode a fragment ends in (the episode goes on in the next sample), and what it
// writes into the advantages is what the sample holds.
TEST(SamplingConfigTest, OnPostprocessTrajSeesEachTrajectoryAndMayChangeIt) {
  CommonConfig c = Small(2);
  c.env_config = {{"episode_len", 3}, {"scale_advantages", 5.0}};
  c.callbacks = TEST_CALLBACKS_PLUGIN;
  Made m = MakeWorker(c);
  auto first = m.worker->Sample();  // rows 0, 1 of episode 1: no episode ends
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(first->episode_custom_metrics.empty());
  EXPECT_EQ(first->batch.advantages, (std::vector<float>{5, 5})) << "the callback scaled them";
  auto second = m.worker->Sample();  // row 2 ends episode 1; rows 0 of episode 2
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  ASSERT_EQ(second->episode_custom_metrics.size(), 1u);
  EXPECT_EQ(second->episode_custom_metrics[0].at("traj_rows"), 3)
      << "two trajectories of one episode, across two samples";
  EXPECT_EQ(second->batch.advantages, (std::vector<float>{5, 5}));
  EXPECT_EQ(m.policy->postprocessed, 3);
}

TEST(SamplingConfigTest, ACallbackErrorFailsTheSampleNamingThePluginAndCallback) {
  for (const char* callback : {"on_episode_step", "on_postprocess_traj", "on_episode_end", "on_sample_end"}) {
    CommonConfig c = Small(9);
    c.env_config = {{"episode_len", 3}, {"callbacks_fail", callback}};
    c.callbacks = TEST_CALLBACKS_PLUGIN;
    auto r = MakeWorker(c).worker->Sample();
    ASSERT_FALSE(r.ok()) << callback;
    EXPECT_NE(r.status().message().find(std::string(callback) + ": asked to fail"), std::string::npos)
        << r.status().ToString();
    EXPECT_NE(r.status().message().find(TEST_CALLBACKS_PLUGIN), std::string::npos) << r.status().ToString();
  }
  CommonConfig c = Small(9);
  c.callbacks = COUNTER_ENV_PLUGIN;  // a library, but not a callbacks plugin
  c.env_plugin = COUNTER_ENV_PLUGIN;
  auto w = RolloutWorker::Create("Counter-v0", c, 1, [](const PolicySpec& spec, std::optional<int64_t>) {
    return Result<std::unique_ptr<Policy>>(std::unique_ptr<Policy>(std::make_unique<ScriptedPolicy>(spec)));
  });
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("not a callbacks plugin"), std::string::npos) << w.status().ToString();
}

}  // namespace
}  // namespace ray::rllib
