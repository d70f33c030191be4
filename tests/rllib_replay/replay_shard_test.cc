// Ape-X's replay pieces without a cluster: rows added with their workers' TD errors
// as priorities, a shard that replays only once it holds its share of
// learning_starts, and the learner thread handing a replayed batch's TD errors back.
#include "runtime/rllib/optimizers/replay_shard.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "runtime/rllib/optimizers/learner_thread.h"
#include "tests/rllib_replay/replay_rows.h"

namespace ray::rllib {
namespace {

using testing::Rows;

TEST(PrioritizedReplayBufferTest, AddWithPrioritiesTakesEachRowsWeightAndWraps) {
  PrioritizedReplayBuffer buffer(3, /*alpha=*/0.5, /*seed=*/1);
  SampleBatch b = Rows(0, 4);
  b.weights = {1, 4, 9, 16};  // slot 0 is written twice: rows 0 and 3
  buffer.AddWithPriorities(b);
  EXPECT_NEAR(buffer.PriorityAlpha(0), 4.0, 1e-9);
  EXPECT_NEAR(buffer.PriorityAlpha(1), 2.0, 1e-9);
  EXPECT_NEAR(buffer.PriorityAlpha(2), 3.0, 1e-9);
  EXPECT_DOUBLE_EQ(buffer.max_priority(), 16.0);
  buffer.AddWithPriorities(Rows(4, 1));  // no weights: the largest priority so far
  EXPECT_NEAR(buffer.PriorityAlpha(1), 4.0, 1e-9);
  SampleBatch zero = Rows(5, 1);
  zero.weights = {0};
  EXPECT_THROW(buffer.AddWithPriorities(zero), std::invalid_argument);
}

TEST(ReplayShardTest, ReplaysOnceItHoldsLearningStartsRowsWithPrioritiesFromTDErrors) {
  ReplayShardOptions o;
  o.capacity = 100;
  o.learning_starts = 10;
  o.train_batch_size = 64;
  o.alpha = 1.0;
  o.eps = 0.5;
  std::unique_ptr<ReplayShard> shard(ReplayShard::Create(o));
  SampleBatch b = Rows(0, 6);
  b.weights = {0, -1, 2, 0, 0, 0};  // TD errors: priorities |td| + eps
  EXPECT_EQ(shard->Add(b), 6);
  EXPECT_FALSE(shard->Replay().ready) << "6 rows < learning_starts 10";
  EXPECT_EQ(shard->Add(Rows(6, 4)), 10);
  ReplayedBatch r = shard->Replay();
  ASSERT_TRUE(r.ready);
  ASSERT_EQ(r.batch.size(), 64);
  ASSERT_EQ(r.indexes.size(), 64u);
  for (size_t i = 0; i < r.indexes.size(); ++i) EXPECT_EQ(r.batch.obs[i], static_cast<float>(r.indexes[i]));
  // Row 2 has priority 2.5 of 16 in all (1.5 for row 1, 0.5 for rows 0, 3-5, 2.5 for
  // rows 6-9 added without TD errors: the largest so far); then 0.75 of 14.25.
  auto draws_of_row_2 = [&] {
    int n = 0;
    for (int k = 0; k < 20; ++k) {
      for (int64_t s : shard->Replay().indexes) n += s == 2;
    }
    return n;  // of 1,280: about 200, then about 67
  };
  const int before = draws_of_row_2();
  EXPECT_TRUE(shard->UpdatePriorities({2}, {-0.25f}));
  const int after = draws_of_row_2();
  EXPECT_GT(before, 160);
  EXPECT_LT(after, 110);
}

class TDPolicy : public Policy, public ReplayPolicy {
 public:
  const PolicySpec& spec() const override { return spec_; }
  ActionBatch ComputeActions(const std::vector<float>&, bool) override { return {}; }
  void Postprocess(SampleBatch*, const std::vector<float>&) override {}
  LearnerStats LearnOnBatch(const SampleBatch& batch) override {
    last_ = batch.obs;
    return {};
  }
  Gradients ComputeGradients(const SampleBatch&) override { return {}; }
  void ApplyGradients(const std::vector<float>&) override {}
  std::vector<float> GetWeights() const override { return {}; }
  void SetWeights(const std::vector<float>&) override {}
  void SaveState(const std::string&) const override {}
  void RestoreState(const std::string&) override {}
  std::vector<float> LastTDErrors() const override { return last_; }  // the obs
  void UpdateTarget() override {}

  PolicySpec spec_{1, 2, true};
  std::vector<float> last_;
};

TEST(LearnerThreadTest, AReplayedBatchComesBackWithItsShardSlotsAndTDErrors) {
  TDPolicy policy;
  LearnerThread learner(&policy, 4, 1);
  ASSERT_TRUE(learner.Put(Rows(7, 3), 0, std::chrono::seconds(1),
                          LearnerThread::Replayed{2, {11, 12, 13}, {}}));
  ASSERT_TRUE(learner.Put(Rows(0, 2), 0, std::chrono::seconds(1)));  // not replayed
  ASSERT_TRUE(learner.Drain(std::chrono::seconds(10)));
  std::vector<LearnerThread::Replayed> back = learner.TakeReplayed();
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].shard, 2);
  EXPECT_EQ(back[0].indexes, (std::vector<int64_t>{11, 12, 13}));
  EXPECT_EQ(back[0].td_errors, (std::vector<float>{7, 8, 9}));
  EXPECT_EQ(learner.TakeTrained(), 5);
  EXPECT_TRUE(learner.TakeReplayed().empty());
}

}  // namespace
}  // namespace ray::rllib
