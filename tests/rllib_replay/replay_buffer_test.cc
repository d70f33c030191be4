#include "runtime/rllib/replay/replay_buffer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "runtime/rllib/optimizers/sample_replay.h"
#include "runtime/rllib/replay/linear_schedule.h"
#include "runtime/rllib/replay/segment_tree.h"
#include "tests/rllib_replay/replay_rows.h"

namespace ray::rllib {
namespace {

using testing::Rows;

TEST(SegmentTreeTest, SumMinAndPrefixSearch) {
  SumSegmentTree sum(5);
  MinSegmentTree min(5);
  const double v[] = {1, 2, 3, 4, 0.5};
  for (int i = 0; i < 5; ++i) {
    sum.Set(i, v[i]);
    min.Set(i, v[i]);
  }
  EXPECT_DOUBLE_EQ(sum.Reduce(), 10.5);
  EXPECT_DOUBLE_EQ(min.Reduce(), 0.5);
  EXPECT_EQ(sum.FindPrefixSumIndex(0.0), 0);
  EXPECT_EQ(sum.FindPrefixSumIndex(0.99), 0);
  EXPECT_EQ(sum.FindPrefixSumIndex(1.0), 1);
  EXPECT_EQ(sum.FindPrefixSumIndex(5.9), 2);
  EXPECT_EQ(sum.FindPrefixSumIndex(6.0), 3);
  EXPECT_EQ(sum.FindPrefixSumIndex(10.2), 4);
  EXPECT_EQ(sum.FindPrefixSumIndex(10.5), 4);  // at the total: the last slot with mass
  sum.Set(1, 0);
  EXPECT_EQ(sum.FindPrefixSumIndex(1.5), 2);  // an empty slot is never chosen
  EXPECT_THROW(sum.Set(5, 1), std::out_of_range);
}

TEST(LinearScheduleTest, InterpolatesThenHolds) {
  LinearSchedule s{100, 1.0, 0.02};
  EXPECT_DOUBLE_EQ(s.Value(0), 1.0);
  EXPECT_NEAR(s.Value(50), 0.51, 1e-12);
  EXPECT_DOUBLE_EQ(s.Value(100), 0.02);
  EXPECT_DOUBLE_EQ(s.Value(1000), 0.02);
  EXPECT_DOUBLE_EQ((LinearSchedule{0, 1.0, 0.3}.Value(0)), 0.3);
}

TEST(ReplayBufferTest, StoresTransitionsAndWrapsAround) {
  ReplayBuffer buffer(5, /*seed=*/1);
  buffer.Add(Rows(0, 3));
  EXPECT_EQ(buffer.size(), 3);
  buffer.Add(Rows(3, 4));  // 7 rows into 5 slots: rows 0 and 1 are overwritten
  EXPECT_EQ(buffer.size(), 5);
  EXPECT_EQ(buffer.num_added(), 7);
  ReplaySample s = buffer.Sample(2000);
  ASSERT_EQ(s.batch.size(), 2000);
  s.batch.Validate();
  std::set<float> seen;
  for (int64_t i = 0; i < s.batch.size(); ++i) {
    const float o = s.batch.obs[i];
    seen.insert(o);
    // Every column of a row comes from the same transition.
    EXPECT_FLOAT_EQ(s.batch.new_obs[i], o + 0.5f);
    EXPECT_FLOAT_EQ(s.batch.rewards[i], o * 10);
    EXPECT_EQ(s.batch.weights[i], 1.f);
  }
  EXPECT_EQ(seen, (std::set<float>{2, 3, 4, 5, 6}));
  // Slot of row 5 is 0 (5 mod 5), of row 6 is 1.
  for (size_t i = 0; i < s.indexes.size(); ++i) {
    EXPECT_EQ(s.indexes[i], static_cast<int64_t>(s.batch.obs[i]) % 5);
  }
}

TEST(ReplayBufferTest, UniformSamplingFrequencies) {
  ReplayBuffer buffer(4, /*seed=*/7);
  buffer.Add(Rows(0, 4));
  std::map<float, int> count;
  const int n = 40000;
  ReplaySample s = buffer.Sample(n);
  for (float o : s.batch.obs) ++count[o];
  for (int k = 0; k < 4; ++k) EXPECT_NEAR(count[static_cast<float>(k)] / double(n), 0.25, 0.01) << k;
}

TEST(ReplayBufferTest, RefusesBadInput) {
  EXPECT_THROW(ReplayBuffer(0, 1), std::invalid_argument);
  ReplayBuffer buffer(4, 1);
  EXPECT_THROW(buffer.Sample(1), std::invalid_argument);  // empty
  SampleBatch no_new_obs = Rows(0, 2);
  no_new_obs.new_obs.clear();
  EXPECT_THROW(buffer.Add(no_new_obs), std::invalid_argument);
  buffer.Add(Rows(0, 2));
  SampleBatch wider = Rows(0, 1);
  wider.obs_dim = 2;
  wider.obs = {0, 0};
  wider.new_obs = {0, 0};
  EXPECT_THROW(buffer.Add(wider), std::invalid_argument);
  EXPECT_THROW(buffer.Sample(0), std::invalid_argument);
}

TEST(PrioritizedReplayBufferTest, SamplesProportionalToPriorityPowAlpha) {
  for (double alpha : {1.0, 0.5}) {
    PrioritizedReplayBuffer buffer(4, alpha, /*seed=*/3);
    buffer.Add(Rows(0, 4));
    buffer.UpdatePriorities({0, 1, 2, 3}, {1, 2, 3, 4});
    double total = 0;
    for (int k = 1; k <= 4; ++k) total += std::pow(k, alpha);
    const int n = 40000;
    ReplaySample s = buffer.Sample(n, /*beta=*/0.4);
    std::map<int64_t, int> count;
    for (int64_t slot : s.indexes) ++count[slot];
    for (int k = 0; k < 4; ++k) {
      EXPECT_NEAR(count[k] / double(n), std::pow(k + 1, alpha) / total, 0.01) << "alpha " << alpha << " slot " << k;
    }
  }
}

TEST(PrioritizedReplayBufferTest, ImportanceWeightsNormalisedByTheLargest) {
  PrioritizedReplayBuffer buffer(8, /*alpha=*/1.0, /*seed=*/5);
  buffer.Add(Rows(0, 4));
  buffer.UpdatePriorities({0, 1, 2, 3}, {1, 2, 3, 4});
  const double beta = 0.4, N = 4, total = 10;
  const double max_weight = std::pow(1 / total * N, -beta);
  ReplaySample s = buffer.Sample(200, beta);
  for (size_t i = 0; i < s.indexes.size(); ++i) {
    const double p = static_cast<double>(s.indexes[i] + 1) / total;
    EXPECT_NEAR(s.batch.weights[i], std::pow(p * N, -beta) / max_weight, 1e-6);
    EXPECT_FLOAT_EQ(s.batch.obs[i], static_cast<float>(s.indexes[i]));
  }
  // The lowest priority has weight 1, the highest 4^-beta.
  EXPECT_NEAR(std::pow(4 / total * N, -beta) / max_weight, std::pow(4.0, -beta), 1e-12);
}

TEST(PrioritizedReplayBufferTest, NewRowsGetTheMaxPriorityAndWrapAround) {
  PrioritizedReplayBuffer buffer(3, /*alpha=*/0.6, /*seed=*/2);
  buffer.Add(Rows(0, 2));
  EXPECT_DOUBLE_EQ(buffer.PriorityAlpha(0), 1.0);  // nothing seen yet: 1
  buffer.UpdatePriorities({0}, {5.0});
  EXPECT_DOUBLE_EQ(buffer.max_priority(), 5.0);
  buffer.Add(Rows(2, 2));  // slots 2 and 0 (wrapped): both get max priority 5
  EXPECT_NEAR(buffer.PriorityAlpha(2), std::pow(5.0, 0.6), 1e-12);
  EXPECT_NEAR(buffer.PriorityAlpha(0), std::pow(5.0, 0.6), 1e-12);
  EXPECT_DOUBLE_EQ(buffer.PriorityAlpha(1), 1.0);
  ReplaySample s = buffer.Sample(500, 1.0);
  for (size_t i = 0; i < s.indexes.size(); ++i) {
    EXPECT_FLOAT_EQ(s.batch.obs[i], s.indexes[i] == 0 ? 3.f : static_cast<float>(s.indexes[i]));
  }
}

TEST(PrioritizedReplayBufferTest, RefusesBadInput) {
  EXPECT_THROW(PrioritizedReplayBuffer(4, -0.1, 1), std::invalid_argument);
  PrioritizedReplayBuffer buffer(4, 0.6, 1);
  buffer.Add(Rows(0, 2));
  EXPECT_THROW(buffer.Sample(4, 0.0), std::invalid_argument);
  EXPECT_THROW(buffer.UpdatePriorities({0}, {0.0}), std::invalid_argument);
  EXPECT_THROW(buffer.UpdatePriorities({0}, {NAN}), std::invalid_argument);
  EXPECT_THROW(buffer.UpdatePriorities({3}, {1.0}), std::invalid_argument);  // not stored
  EXPECT_THROW(buffer.UpdatePriorities({0, 1}, {1.0}), std::invalid_argument);
}

// IMPALA's replay (SampleReplay): nothing replays until more fragments are kept than
// a train batch needs; then on average `proportion` kept fragments, from the last
// num_slots only, follow each new one.
TEST(SampleReplayTest, ReplaysProportionKeptFragmentsFromTheLastSlots) {
  for (double proportion : {0.5, 1.5}) {
    SampleReplay replay(proportion, /*num_slots=*/10, /*train_batch_size=*/100, /*sample_batch_size=*/50, 7);
    for (int i = 0; i < 2; ++i) {
      EXPECT_TRUE(replay.AddAndDraw(Rows(i, 1)).empty()) << "2 fragments make a train batch: no replay yet";
    }
    size_t replays = 0;
    const int n = 20000;
    for (int i = 2; i < 2 + n; ++i) {
      for (const SampleBatch& b : replay.AddAndDraw(Rows(i, 1))) {
        ++replays;
        EXPECT_GT(b.obs[0], i - 10) << "from the last 10 fragments only";
        EXPECT_LE(b.obs[0], i);
      }
    }
    EXPECT_NEAR(static_cast<double>(replays) / n, proportion, 0.03) << proportion;
    EXPECT_EQ(replay.num_kept(), 10u);
  }
  SampleReplay none(0.0, 10, 100, 50, 7);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(none.AddAndDraw(Rows(i, 1)).empty());
  SampleReplay no_slots(1.0, 0, 100, 50, 7);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(no_slots.AddAndDraw(Rows(i, 1)).empty());
  EXPECT_THROW(SampleReplay(-1, 1, 1, 1, 1), std::invalid_argument);
}

}  // namespace
}  // namespace ray::rllib
