#include <gtest/gtest.h>

#include "runtime/tune/scheduler.h"
#include "tests/tune/fake_runner.h"

namespace ray::tune {
namespace {

using test::FakeRunner;
using test::Report;

std::unique_ptr<TrialScheduler> Median(Json config) {
  config["metric"] = "score";
  config["time_attr"] = "training_iteration";
  auto s = MakeScheduler("MedianStopping", config, 0);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return std::move(*s);
}

Json At(int64_t iteration, double score) {
  return {{"training_iteration", iteration}, {"score", score}};
}

// t0 scores 0, 10, 20, 30 and t1 10, 10, 10, 10 at iterations 1..4, both finished.
void TwoFinishedTrials(TrialScheduler& s, FakeRunner& runner) {
  for (int i = 0; i < 2; ++i) {
    Trial& t = runner.Add(s);
    for (int it = 1; it <= 4; ++it) {
      EXPECT_EQ(Report(s, runner, t, At(it, i == 0 ? 10 * (it - 1) : 10)), Decision::kContinue);
    }
    t.status = TrialStatus::kTerminated;
    s.OnTrialComplete(runner, t, At(4, i == 0 ? 30 : 10));
  }
}

TEST(MedianStoppingTest, StopsWhenTheBestSoFarIsStrictlyBelowTheMedianOfRunningMeans) {
  auto median = Median({{"grace_period", 1}, {"min_samples_required", 2}});
  FakeRunner runner;
  TwoFinishedTrials(*median, runner);
  Trial& t = runner.Add(*median);
  // t=1: running means 0 and 10, median 5; best 5 is not strictly worse.
  EXPECT_EQ(Report(*median, runner, t, At(1, 5)), Decision::kContinue);
  // t=2: running means (0 + 10) / 2 = 5 and 10, median 7.5; best 5 is.
  EXPECT_EQ(Report(*median, runner, t, At(2, 5)), Decision::kStop);
  EXPECT_EQ(median->DebugString(), "Using MedianStoppingRule: num_stopped=1.");
  // The best result counts, not the latest: 8 earlier keeps this one going.
  Trial& u = runner.Add(*median);
  EXPECT_EQ(Report(*median, runner, u, At(1, 8)), Decision::kContinue);
  EXPECT_EQ(Report(*median, runner, u, At(2, 1)), Decision::kContinue);
}

TEST(MedianStoppingTest, GracePeriodAndModeMin) {
  auto median = Median({{"grace_period", 3}, {"min_samples_required", 2}, {"mode", "min"}});
  FakeRunner runner;
  TwoFinishedTrials(*median, runner);
  Trial& t = runner.Add(*median);
  EXPECT_EQ(Report(*median, runner, t, At(1, 1000)), Decision::kContinue);  // too young
  // t=3, means over [3, 3]: 20 and 10, median 15; lower is better: 12 passes.
  EXPECT_EQ(Report(*median, runner, t, At(3, 12)), Decision::kContinue);
  // Now 20, 10 and 12: 16 is worse than the median 12.
  Trial& u = runner.Add(*median);
  EXPECT_EQ(Report(*median, runner, u, At(3, 16)), Decision::kStop);
}

TEST(MedianStoppingTest, TooFewSamplesYieldsToWaitingTrials) {
  auto median = Median({{"grace_period", 1}, {"min_samples_required", 3}});
  FakeRunner runner;
  TwoFinishedTrials(*median, runner);
  Trial& t = runner.Add(*median);
  EXPECT_EQ(Report(*median, runner, t, At(1, -50)), Decision::kContinue);  // nobody waits
  runner.Add(*median);                                                     // pending
  EXPECT_EQ(Report(*median, runner, t, At(2, -50)), Decision::kPause);
}

TEST(MedianStoppingTest, SoftStopPausesOnceAndThenLetsTheTrialRun) {
  auto median = Median({{"grace_period", 1}, {"min_samples_required", 2}, {"hard_stop", false}});
  FakeRunner runner;
  TwoFinishedTrials(*median, runner);
  Trial& t = runner.Add(*median);
  EXPECT_EQ(Report(*median, runner, t, At(1, -1)), Decision::kPause);
  EXPECT_EQ(median->ChooseTrialToRun(runner), &t);  // FIFO: nothing else waits
  EXPECT_EQ(Report(*median, runner, t, At(2, -1)), Decision::kContinue);
}

}  // namespace
}  // namespace ray::tune
