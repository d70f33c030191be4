#include "runtime/rllib/rollout_worker.h"

#include <gtest/gtest.h>

#include "tests/rllib_worker/scripted_policy.h"

namespace ray::rllib {
namespace {

std::unique_ptr<RolloutWorker> MakeWorker(const std::string& batch_mode, ScriptedPolicy** out) {
  CommonConfig c;
  c.num_envs_per_worker = 3;
  c.sample_batch_size = 25;
  c.batch_mode = batch_mode;
  c.seed = 4;
  auto w = RolloutWorker::Create("CartPole-v1", c, 1,
                                 [out](const PolicySpec& spec, std::optional<int64_t> seed)
                                     -> Result<std::unique_ptr<Policy>> {
                                   EXPECT_EQ(seed, 1004) << "config seed + 1000 * worker index";
                                   auto p = std::make_unique<ScriptedPolicy>(spec);
                                   *out = p.get();
                                   return std::unique_ptr<Policy>(std::move(p));
                                 });
  EXPECT_TRUE(w.ok()) << w.status().ToString();
  return std::move(w).value();
}

TEST(RolloutWorkerTest, TruncateEpisodesReturnsFixedFragmentsFromAnyPolicy) {
  ScriptedPolicy* policy = nullptr;
  auto w = MakeWorker("truncate_episodes", &policy);
  auto r = w->Sample();
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->batch.size(), 3 * 25);
  EXPECT_TRUE(r->batch.vf_preds.empty());
  EXPECT_NO_THROW(r->batch.Validate());
  EXPECT_FALSE(r->episode_returns.empty()) << "pushing right ends episodes fast";
  EXPECT_GT(policy->postprocessed, 3);
  EXPECT_EQ(r->batch.advantages.size(), r->batch.rewards.size());
}

TEST(RolloutWorkerTest, CompleteEpisodesReturnsOnlyWholeEpisodes) {
  ScriptedPolicy* policy = nullptr;
  auto w = MakeWorker("complete_episodes", &policy);
  for (int call = 0; call < 3; ++call) {
    auto r = w->Sample();
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const SampleBatch& b = r->batch;
    EXPECT_GE(b.size(), 3 * 25);
    // Every episode in the batch ends in it, and the batch ends with an episode end.
    ASSERT_GT(b.size(), 0);
    EXPECT_TRUE(b.terminateds.back() || b.truncateds.back());
    int64_t rows_in_episodes = 0;
    for (int64_t len : r->episode_lengths) rows_in_episodes += len;
    EXPECT_EQ(rows_in_episodes, b.size()) << "rows are exactly the finished episodes";
    for (int64_t i = 0; i + 1 < b.size(); ++i) {
      if (b.eps_id[i] != b.eps_id[i + 1]) {
        EXPECT_TRUE(b.terminateds[i] || b.truncateds[i]) << i;
      }
    }
  }
}

TEST(RolloutWorkerTest, PolicyErrorsBecomeStatusesNamingThePolicy) {
  ScriptedPolicy* policy = nullptr;
  auto w = MakeWorker("truncate_episodes", &policy);
  Status st = w->SetWeights({1.f});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("no weights"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace ray::rllib
