// SyncReplayOptimizer with a scripted sampler (fragments of 4 rows, obs = the global
// row number) and a scripted policy that records what it learns on.
#include "runtime/rllib/optimizers/sync_replay_optimizer.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ray::rllib {
namespace {

class ScriptedPolicy : public Policy, public ReplayPolicy {
 public:
  const PolicySpec& spec() const override { return spec_; }
  ActionBatch ComputeActions(const std::vector<float>&, bool) override { return {}; }
  void Postprocess(SampleBatch*, const std::vector<float>&) override {}
  LearnerStats LearnOnBatch(const SampleBatch& batch) override {
    batches.push_back(batch);
    timesteps.push_back(timestep);
    return {{"loss", 1.0}};
  }
  Gradients ComputeGradients(const SampleBatch&) override { return {}; }
  void ApplyGradients(const std::vector<float>&) override {}
  std::vector<float> GetWeights() const override { return {}; }
  void SetWeights(const std::vector<float>&) override {}
  void OnGlobalVarUpdate(int64_t t) override { timestep = t; }
  void SaveState(const std::string&) const override {}
  void RestoreState(const std::string&) override {}
  // TD error of a row: its obs (row 0's error is 0: priority eps only).
  std::vector<float> LastTDErrors() const override { return batches.back().obs; }
  void UpdateTarget() override { ++target_updates; }

  PolicySpec spec_{1, 2, true};
  std::vector<SampleBatch> batches;
  std::vector<int64_t> timesteps;
  int64_t timestep = 0;
  int target_updates = 0;
};

struct ScriptedSampler {
  int64_t next_row = 0;
  std::vector<int64_t> global_timesteps;  // what each call was told
  std::vector<SampleResult> operator()(int64_t t) {
    global_timesteps.push_back(t);
    SampleResult r;
    r.batch.obs_dim = 1;
    for (int i = 0; i < 4; ++i, ++next_row) {
      r.batch.obs.push_back(static_cast<float>(next_row));
      r.batch.new_obs.push_back(static_cast<float>(next_row + 1));
      r.batch.actions.push_back(0);
      r.batch.rewards.push_back(1);
      r.batch.terminateds.push_back(0);
      r.batch.truncateds.push_back(0);
      r.batch.action_logp.push_back(0);
      r.batch.eps_id.push_back(0);
    }
    r.episode_returns = {static_cast<double>(next_row)};
    r.episode_lengths = {4};
    return {r};
  }
};

SyncReplayOptions Options() {
  SyncReplayOptions o;
  o.learning_starts = 12;
  o.buffer_size = 100;
  o.prioritized_replay = false;
  o.train_batch_size = 8;
  o.sample_batch_size = 4;
  o.target_network_update_freq = 10;
  o.seed = 1;
  return o;
}

TEST(SyncReplayOptimizerTest, LearnsAfterLearningStartsAndCountsSteps) {
  ScriptedPolicy policy;
  auto sampler = std::make_shared<ScriptedSampler>();
  SyncReplayOptimizer opt([sampler](int64_t t) { return (*sampler)(t); }, &policy, Options());
  for (int i = 0; i < 3; ++i) {
    OptimizerStep s = opt.Step();
    EXPECT_EQ(s.steps_sampled, 4);
    EXPECT_TRUE(s.learner.empty()) << "learned before learning_starts at step " << i;
  }
  EXPECT_TRUE(policy.batches.empty());
  EXPECT_EQ(opt.stats().num_steps_trained, 0);
  OptimizerStep s = opt.Step();  // 12 sampled before this step: learns
  EXPECT_EQ(s.learner.at("loss"), 1.0);
  ASSERT_EQ(policy.batches.size(), 1u);
  EXPECT_EQ(policy.batches[0].size(), 8);
  EXPECT_EQ(policy.timesteps[0], 12);
  EXPECT_EQ(opt.stats().num_steps_sampled, 16);
  EXPECT_EQ(opt.stats().num_steps_trained, 8);
  EXPECT_EQ(s.episode_returns, std::vector<double>{16});
  EXPECT_EQ(sampler->global_timesteps, (std::vector<int64_t>{0, 4, 8, 12}));
  // Only rows sampled so far can be replayed.
  for (float o : policy.batches[0].obs) EXPECT_LT(o, 16.f);
  auto m = opt.stats().ToMap();
  EXPECT_EQ(m.at("learning_starts"), 12);
  EXPECT_EQ(m.at("train_batch_size"), 8);
  EXPECT_EQ(m.at("sample_batch_size"), 4);
  EXPECT_EQ(m.at("target_network_update_freq"), 10);
  EXPECT_EQ(m.at("replay_buffer_size"), 16);
  EXPECT_TRUE(m.count("sample_time_ms") && m.count("replay_time_ms") && m.count("grad_time_ms"));
}

TEST(SyncReplayOptimizerTest, UpdatesTheTargetWhenMoreThanFreqStepsPassed) {
  ScriptedPolicy policy;
  auto sampler = std::make_shared<ScriptedSampler>();
  SyncReplayOptimizer opt([sampler](int64_t t) { return (*sampler)(t); }, &policy, Options());
  std::vector<int> after;
  for (int i = 0; i < 8; ++i) {
    opt.Step();
    after.push_back(policy.target_updates);
  }
  // Sampled 4, 8, 12 (> 10: update, last = 12), 16, 20, 24 (> 22: update), 28, 32.
  EXPECT_EQ(after, (std::vector<int>{0, 0, 1, 1, 1, 2, 2, 2}));
  EXPECT_EQ(opt.stats().ToMap().at("num_target_updates"), 2);
  EXPECT_EQ(opt.stats().ToMap().at("last_target_update_ts"), 24);
}

TEST(SyncReplayOptimizerTest, PrioritizedReplaySetsPrioritiesFromTDErrorsAndAnnealsBeta) {
  ScriptedPolicy policy;
  auto sampler = std::make_shared<ScriptedSampler>();
  SyncReplayOptions o = Options();
  o.prioritized_replay = true;
  o.prioritized_replay_alpha = 1.0;
  o.prioritized_replay_beta = 0.4;
  o.final_prioritized_replay_beta = 1.0;
  o.beta_annealing_timesteps = 80;
  o.prioritized_replay_eps = 1e-6;
  o.learning_starts = 40;  // fill the buffer with rows 0..39 first
  o.target_network_update_freq = 1000;
  SyncReplayOptimizer opt([sampler](int64_t t) { return (*sampler)(t); }, &policy, o);
  for (int i = 0; i < 10; ++i) opt.Step();
  EXPECT_DOUBLE_EQ(opt.stats().ToMap().at("prioritized_replay_beta"), 0.4);
  for (int i = 0; i < 200; ++i) opt.Step();
  // Every row learned on got priority |obs| + eps (new rows the largest seen), so a
  // row is drawn about in proportion to its obs: relative to the rows stored, the
  // mean draw sits near 2/3 (uniform replay: 1/2).
  double ratio = 0;
  int rows = 0;
  for (size_t b = policy.batches.size() - 100; b < policy.batches.size(); ++b) {
    const double stored = static_cast<double>(policy.timesteps[b] + 4);
    for (float obs : policy.batches[b].obs) {
      ratio += obs / stored;
      ++rows;
    }
  }
  EXPECT_GT(ratio / rows, 0.6);
  // The weights of the last batch follow beta = 1 (annealed over 80 steps trained):
  // the largest-priority row has the smallest weight.
  EXPECT_DOUBLE_EQ(opt.stats().ToMap().at("prioritized_replay_beta"), 1.0);
  const SampleBatch& last = policy.batches.back();
  for (int64_t i = 0; i < last.size(); ++i) {
    EXPECT_GT(last.weights[i], 0.f);
    EXPECT_LE(last.weights[i], 1.f);
  }
}

TEST(SyncReplayOptimizerTest, RefusesBadOptionsNamingTheKey) {
  ScriptedPolicy policy;
  auto sampler = [](int64_t) { return std::vector<SampleResult>{}; };
  SyncReplayOptions o = Options();
  o.buffer_size = 0;
  try {
    SyncReplayOptimizer opt(sampler, &policy, o);
    FAIL() << "accepted buffer_size 0";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("buffer_size"), std::string::npos) << e.what();
  }
  o = Options();
  o.prioritized_replay = true;
  o.prioritized_replay_beta = 0;
  EXPECT_THROW(SyncReplayOptimizer(sampler, &policy, o), std::invalid_argument);
}

}  // namespace
}  // namespace ray::rllib
