// RunningStat, MeanStdFilter and the FilterManager protocol (merge the workers'
// buffers into the trainer's filter, sync it back), against statistics computed
// directly.

#include "runtime/rllib/observation_filter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

namespace ray::rllib {
namespace {

// Sample mean and std of one column.
std::pair<double, double> Direct(const std::vector<double>& xs) {
  const double mean = std::accumulate(xs.begin(), xs.end(), 0.0) / xs.size();
  double ss = 0;
  for (double x : xs) ss += (x - mean) * (x - mean);
  return {mean, std::sqrt(ss / (xs.size() - 1))};
}

TEST(ObservationFilterTest, RunningStatMatchesTheDirectMeanAndStd) {
  RunningStat rs(2);
  std::vector<double> a, b;
  for (int i = 0; i < 50; ++i) {
    float x[2] = {static_cast<float>(std::sin(i)), static_cast<float>(i * 0.5 - 3)};
    rs.Push(x);
    a.push_back(x[0]);
    b.push_back(x[1]);
  }
  EXPECT_EQ(rs.count(), 50);
  EXPECT_NEAR(rs.mean()[0], Direct(a).first, 1e-9);
  EXPECT_NEAR(rs.Std()[0], Direct(a).second, 1e-9);
  EXPECT_NEAR(rs.mean()[1], Direct(b).first, 1e-9);
  EXPECT_NEAR(rs.Std()[1], Direct(b).second, 1e-9);
  RunningStat one(1);
  float x = -3;
  one.Push(&x);
  EXPECT_EQ(one.Std()[0], 3) << "RLlib: one value's std is |mean|";
}

TEST(ObservationFilterTest, MergingStatsEqualsPushingEverything) {
  RunningStat left(1), right(1), all(1);
  for (int i = 0; i < 30; ++i) {
    float x = static_cast<float>(i * i % 7);
    (i < 12 ? left : right).Push(&x);
    all.Push(&x);
  }
  left.Merge(right);
  EXPECT_EQ(left.count(), all.count());
  EXPECT_NEAR(left.mean()[0], all.mean()[0], 1e-9);
  EXPECT_NEAR(left.Std()[0], all.Std()[0], 1e-9);
  RunningStat empty(1);
  empty.Merge(all);
  EXPECT_NEAR(empty.Std()[0], all.Std()[0], 1e-12);
}

TEST(ObservationFilterTest, FilterNormalisesAndOnlyUpdatesWhenAsked) {
  MeanStdFilter f(1);
  for (float v : {1.f, 2.f, 3.f, 4.f}) {
    float x = v;
    f.Apply(&x, true);
  }
  float x = 4;
  f.Apply(&x, false);
  EXPECT_EQ(f.stat().count(), 4);
  EXPECT_NEAR(x, (4 - 2.5) / (std::sqrt(5.0 / 3.0) + 1e-8), 1e-6);
}

TEST(ObservationFilterTest, SyncingWorkersCountsEachObservationOnce) {
  MeanStdFilter master(1), w1(1), w2(1);
  RunningStat all(1);
  auto push = [&](MeanStdFilter& w, float v) {
    all.Push(&v);
    w.Apply(&v, true);
  };
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 5; ++i) {
      push(w1, static_cast<float>(round + i));
      push(w2, static_cast<float>(10 - i * round));
    }
    // The trainer: collect and flush, merge, send back.
    for (MeanStdFilter* w : {&w1, &w2}) ASSERT_TRUE(master.Merge(w->GetState(/*flush=*/true)).ok());
    for (MeanStdFilter* w : {&w1, &w2}) ASSERT_TRUE(w->SyncFrom(master.GetState(false)).ok());
    EXPECT_EQ(master.stat().count(), all.count()) << "round " << round;
    EXPECT_NEAR(master.stat().mean()[0], all.mean()[0], 1e-9);
    EXPECT_NEAR(master.stat().Std()[0], all.Std()[0], 1e-9);
    EXPECT_EQ(w1.stat().count(), all.count()) << "every worker normalises with everyone's statistics";
    EXPECT_EQ(w2.GetState(false).buffer.count(), 0) << "flushed and synced";
  }
  MeanStdFilter other(3);
  EXPECT_FALSE(master.Merge(other.GetState(true)).ok()) << "sizes must match";
}

TEST(ObservationFilterTest, CheckpointFormRoundTrips) {
  MeanStdFilter f(2), g(2);
  for (int i = 0; i < 5; ++i) {
    float x[2] = {static_cast<float>(i), static_cast<float>(-i)};
    f.Apply(x, true);
  }
  ASSERT_TRUE(g.FromJson(f.ToJson()).ok());
  EXPECT_EQ(g.stat().count(), 5);
  EXPECT_EQ(g.stat().mean(), f.stat().mean());
  EXPECT_FALSE(MeanStdFilter(1).FromJson(f.ToJson()).ok());
  EXPECT_FALSE(g.FromJson(nlohmann::json{{"n", 1}}).ok());
}

}  // namespace
}  // namespace ray::rllib
