#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "runtime/tune/scheduler.h"
#include "tests/tune/fake_runner.h"

namespace ray::tune {
namespace {

using test::FakeRunner;
using test::Report;

std::unique_ptr<TrialScheduler> Asha(Json config, uint64_t seed = 0) {
  if (!config.contains("metric")) config["metric"] = "score";
  auto s = MakeScheduler("AsyncHyperBand", config, seed);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return std::move(*s);
}

Json At(int64_t iteration, double score) {
  return {{"training_iteration", iteration}, {"score", score}};
}

TEST(AshaTest, DefaultsAreRaysNewerOnes) {
  // max_t 100, grace_period 1, reduction_factor 4, one bracket: rungs 1, 4, 16, 64.
  auto asha = Asha(Json::object());
  EXPECT_EQ(asha->DebugString(),
            "Using AsyncHyperBand: num_stopped=0\n"
            "Bracket: Iter 64.000: None | Iter 16.000: None | Iter 4.000: None | Iter 1.000: None");
}

TEST(AshaTest, RayDocstringExample) {
  // _Bracket(min_t=1, max_t=10, rf=2): rungs 8, 4, 2, 1; the cutoff is the median.
  auto asha = Asha({{"grace_period", 1}, {"max_t", 10}, {"reduction_factor", 2}});
  FakeRunner runner;
  for (int i = 0; i < 3; ++i) runner.Add(*asha);
  EXPECT_EQ(Report(*asha, runner, runner[0], At(1, 2)), Decision::kContinue);
  EXPECT_EQ(Report(*asha, runner, runner[1], At(1, 4)), Decision::kContinue);
  EXPECT_NE(asha->DebugString().find("Iter 1.000: 3.0"), std::string::npos) << asha->DebugString();
  EXPECT_EQ(Report(*asha, runner, runner[2], At(1, 1)), Decision::kStop);
  EXPECT_NE(asha->DebugString().find("Iter 1.000: 2.0"), std::string::npos) << asha->DebugString();
  EXPECT_NE(asha->DebugString().find("num_stopped=1"), std::string::npos);
}

TEST(AshaTest, CutoffIsTheUpperQuantileOfWhoGotThereFirst) {
  // rf 4: the 75th percentile, linearly interpolated, of the metrics recorded so far.
  auto asha = Asha(Json::object());
  FakeRunner runner;
  for (int i = 0; i < 8; ++i) runner.Add(*asha);
  // Each judged on arrival: cutoffs none, 1, 1.75, 2.5, 3.25; all pass.
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(Report(*asha, runner, runner[i], At(1, i + 1)), Decision::kContinue) << i;
  }
  // {1..5}: rank 0.75 * 4 = 3 -> 4.0.
  EXPECT_EQ(Report(*asha, runner, runner[5], At(1, 3.9)), Decision::kStop);
  // {1, 2, 3, 3.9, 4, 5}: rank 3.75 -> 3.9 + 0.75 * 0.1 = 3.975.
  EXPECT_EQ(Report(*asha, runner, runner[6], At(1, 3.97)), Decision::kStop);
  // {1, 2, 3, 3.9, 3.97, 4, 5}: rank 4.5 -> 3.97 + 0.5 * 0.03 = 3.985.
  EXPECT_EQ(Report(*asha, runner, runner[7], At(1, 3.98)), Decision::kStop);
  // {1, 2, 3, 3.9, 3.97, 3.98, 4, 5}: rank 5.25 -> 3.98 + 0.25 * 0.02 = 3.985.
  runner.Add(*asha);
  EXPECT_EQ(Report(*asha, runner, runner[8], At(1, 3.99)), Decision::kContinue);
  // Between rungs nothing is judged; the next rung (4) has only one entry so far.
  EXPECT_EQ(Report(*asha, runner, runner[0], At(2, -100)), Decision::kContinue);
  EXPECT_EQ(Report(*asha, runner, runner[0], At(4, -100)), Decision::kContinue);
  EXPECT_EQ(Report(*asha, runner, runner[1], At(4, -101)), Decision::kStop);
}

TEST(AshaTest, ModeMinFlipsTheComparison) {
  auto asha = Asha({{"mode", "min"}, {"reduction_factor", 2}});
  FakeRunner runner;
  for (int i = 0; i < 3; ++i) runner.Add(*asha);
  EXPECT_EQ(Report(*asha, runner, runner[0], At(1, 1.0)), Decision::kContinue);
  EXPECT_EQ(Report(*asha, runner, runner[1], At(1, 5.0)), Decision::kStop);
  EXPECT_EQ(Report(*asha, runner, runner[2], At(1, 0.5)), Decision::kContinue);
}

TEST(AshaTest, StopsAtMaxTAndIgnoresResultsWithoutTheMetric) {
  auto asha = Asha({{"max_t", 10}});
  FakeRunner runner;
  Trial& t = runner.Add(*asha);
  EXPECT_EQ(Report(*asha, runner, t, {{"training_iteration", 9}}), Decision::kContinue);
  EXPECT_EQ(Report(*asha, runner, t, At(9, 1)), Decision::kContinue);
  EXPECT_EQ(Report(*asha, runner, t, At(10, 1e9)), Decision::kStop);
  EXPECT_NE(asha->DebugString().find("num_stopped=1"), std::string::npos);
}

// Decisions at iteration 1 for 2000 trials with ever worse metrics: in the bracket
// with a rung at 1 every trial after the first stops; the others have no rung there.
std::vector<Decision> FirstRungDecisions(uint64_t seed) {
  auto asha = Asha({{"brackets", 3}}, seed);
  FakeRunner runner;
  std::vector<Decision> out;
  for (int i = 0; i < 2000; ++i) {
    Trial& t = runner.Add(*asha);
    out.push_back(Report(*asha, runner, t, At(1, -i)));
  }
  return out;
}

TEST(AshaTest, BracketsAreDrawnBySoftmaxOfTheirRungCountsUnderTheSeed) {
  // Brackets s = 0, 1, 2 have 4, 3, 2 rungs: P(s = 0) = 1 / (1 + e^-1 + e^-2) = 0.665.
  const auto decisions = FirstRungDecisions(7);
  const auto stopped = std::count(decisions.begin(), decisions.end(), Decision::kStop);
  EXPECT_GT(stopped, 1230);  // 0.665 * 2000 = 1330, sd 21
  EXPECT_LT(stopped, 1430);
  EXPECT_EQ(FirstRungDecisions(7), decisions);
  EXPECT_NE(FirstRungDecisions(8), decisions);
}

TEST(AshaTest, ReachesTheOptimumWithFarFewerIterationsThanFifo) {
  // 64 trials of quality q in (0, 1] (shuffled), learning curves q * (1 - e^(-t/10)):
  // the best trial is best at every t.
  std::vector<double> quality(64);
  std::iota(quality.begin(), quality.end(), 1.0);
  std::shuffle(quality.begin(), quality.end(), std::mt19937_64(3));
  auto curve = [&](const Trial& t, int64_t it) {
    return quality[t.index] / 64 * (1 - std::exp(-static_cast<double>(it) / 10));
  };
  auto run = [&](TrialScheduler& scheduler) {
    FakeRunner runner(/*slots=*/4);
    for (int i = 0; i < 64; ++i) runner.Add(scheduler);
    auto iterations = test::Simulate(scheduler, runner, curve, /*max_iteration=*/100);
    int64_t total = 0;
    double best = 0;
    for (size_t i = 0; i < runner.size(); ++i) {
      total += iterations[runner[i].trial_id];
      best = std::max(best, runner[i].Metric("score").value_or(0));
    }
    return std::make_pair(total, best);
  };
  auto fifo = MakeScheduler("FIFO", nullptr, 0);
  const auto [fifo_total, fifo_best] = run(**fifo);
  auto asha = Asha(Json::object());
  const auto [asha_total, asha_best] = run(*asha);
  EXPECT_EQ(fifo_total, 6400);
  EXPECT_LT(asha_total, fifo_total / 6);
  EXPECT_NEAR(asha_best, fifo_best, 1e-12);  // the best trial ran to max_t
}

}  // namespace
}  // namespace ray::tune
