#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "runtime/tune/scheduler.h"
#include "tests/tune/fake_runner.h"

namespace ray::tune {
namespace {

using test::FakeRunner;
using test::Report;

std::unique_ptr<TrialScheduler> HyperBand(Json config) {
  config["metric"] = "score";
  auto s = MakeScheduler("HyperBand", config, 0);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return std::move(*s);
}

Json At(int64_t iteration, double score) {
  return {{"training_iteration", iteration}, {"score", score}};
}

std::vector<std::string> Lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(HyperBandTest, BracketShapesFollowRaysFormulaSmallestFirst) {
  // max_t 81, eta 3: 5 brackets, (n, r) = (5, 81), (8, 27), (15, 9), (34, 3), (81, 1).
  auto hb = HyperBand(Json::object());
  FakeRunner runner;
  for (int i = 0; i < 5 + 8 + 15 + 34 + 81; ++i) runner.Add(*hb);
  EXPECT_EQ(Lines(hb->DebugString()),
            (std::vector<std::string>{
                "Using HyperBand: num_stopped=0 total_brackets=5",
                "Round #0:",
                "  Bracket(Max Size (n)=5, Milestone (r)=81, completed=0.0%): {PENDING: 5}",
                "  Bracket(Max Size (n)=8, Milestone (r)=27, completed=0.0%): {PENDING: 8}",
                "  Bracket(Max Size (n)=15, Milestone (r)=9, completed=0.0%): {PENDING: 15}",
                "  Bracket(Max Size (n)=34, Milestone (r)=3, completed=0.0%): {PENDING: 34}",
                "  Bracket(Max Size (n)=81, Milestone (r)=1, completed=0.0%): {PENDING: 81}",
            }));
  runner.Add(*hb);  // the band is full: a new one starts with the smallest bracket
  const auto lines = Lines(hb->DebugString());
  EXPECT_EQ(lines[0], "Using HyperBand: num_stopped=0 total_brackets=6");
  EXPECT_EQ(lines[7], "Round #1:");
  EXPECT_EQ(lines[8], "  Bracket(Max Size (n)=5, Milestone (r)=81, completed=0.0%): {PENDING: 1}");
}

TEST(HyperBandTest, MaxT100MatchesRaysStatusExample) {
  auto hb = HyperBand({{"max_t", 100}});
  FakeRunner runner;
  for (int i = 0; i < 5 + 8 + 15 + 34 + 1; ++i) runner.Add(*hb);
  const std::string s = hb->DebugString();
  for (const char* shape :
       {"(n)=5, Milestone (r)=100", "(n)=8, Milestone (r)=33", "(n)=15, Milestone (r)=11",
        "(n)=34, Milestone (r)=3", "(n)=81, Milestone (r)=1"}) {
    EXPECT_NE(s.find(shape), std::string::npos) << shape << "\n" << s;
  }
}

TEST(HyperBandTest, PausesAtTheMilestoneThenHalvesAndStopsAtMaxT) {
  // max_t 9, eta 3: brackets (n=3, r=9), (n=5, r=3), (n=9, r=1).
  auto hb = HyperBand({{"max_t", 9}});
  FakeRunner runner(/*slots=*/100);
  for (int i = 0; i < 8; ++i) runner.Add(*hb);
  for (int i = 0; i < 3; ++i) runner[i].status = TrialStatus::kRunning;  // bracket 0 is busy
  // Bracket 1 holds t3..t7; they reach r=3 one after another and wait there.
  const double score[] = {0, 0, 0, 5, 1, 4, 2, 3};
  for (int i = 3; i < 8; ++i) {
    EXPECT_EQ(Report(*hb, runner, runner[i], At(1, score[i])), Decision::kContinue);
    EXPECT_EQ(Report(*hb, runner, runner[i], At(2, score[i])), Decision::kContinue);
  }
  for (int i = 3; i < 7; ++i) {
    EXPECT_EQ(Report(*hb, runner, runner[i], At(3, score[i])), Decision::kPause) << i;
  }
  EXPECT_EQ(hb->ChooseTrialToRun(runner), nullptr);  // all wait for t7
  // t7 arrives last: the bracket keeps ceil(5/3) = 2 (t3 and t5) and stops the rest,
  // t7 itself included.
  EXPECT_EQ(Report(*hb, runner, runner[7], At(3, score[7])), Decision::kStop);
  EXPECT_EQ(runner[4].status, TrialStatus::kTerminated);
  EXPECT_EQ(runner[6].status, TrialStatus::kTerminated);
  EXPECT_EQ(runner[3].status, TrialStatus::kPaused);
  EXPECT_EQ(runner[5].status, TrialStatus::kPaused);
  EXPECT_NE(hb->DebugString().find("num_stopped=3"), std::string::npos);
  EXPECT_NE(hb->DebugString().find("Bracket(Max Size (n)=2, Milestone (r)=9"), std::string::npos)
      << hb->DebugString();

  // The survivors resume, and the bracket ends at max_t.
  EXPECT_EQ(hb->ChooseTrialToRun(runner), &runner[3]);
  for (int it = 4; it < 9; ++it) {
    EXPECT_EQ(Report(*hb, runner, runner[3], At(it, 5)), Decision::kContinue);
  }
  EXPECT_EQ(Report(*hb, runner, runner[3], At(9, 5)), Decision::kPause);
  EXPECT_EQ(hb->ChooseTrialToRun(runner), &runner[5]);
  for (int it = 4; it < 9; ++it) {
    EXPECT_EQ(Report(*hb, runner, runner[5], At(it, 4)), Decision::kContinue);
  }
  EXPECT_EQ(Report(*hb, runner, runner[5], At(9, 4)), Decision::kStop);
  EXPECT_EQ(runner[3].status, TrialStatus::kTerminated);
  EXPECT_EQ(hb->ChooseTrialToRun(runner), nullptr);
}

TEST(HyperBandTest, ARemovedTrialCanCompleteTheMilestone) {
  auto hb = HyperBand({{"max_t", 9}});
  FakeRunner runner;
  for (int i = 0; i < 3; ++i) runner.Add(*hb);  // bracket (n=3, r=9): no halving
  EXPECT_EQ(Report(*hb, runner, runner[0], At(9, 1)), Decision::kPause);
  EXPECT_EQ(Report(*hb, runner, runner[1], At(9, 2)), Decision::kPause);
  runner[2].status = TrialStatus::kTerminated;
  hb->OnTrialRemove(runner, runner[2]);
  EXPECT_EQ(runner[0].status, TrialStatus::kTerminated);
  EXPECT_EQ(runner[1].status, TrialStatus::kTerminated);
}

TEST(HyperBandTest, AFullExperimentEndsWithEveryTrialWithinMaxT) {
  auto hb = HyperBand(Json::object());
  FakeRunner runner(/*slots=*/8);
  const int n = 5 + 8 + 15 + 34 + 81;
  for (int i = 0; i < n; ++i) runner.Add(*hb);
  // Quality (i * 37) % n: a fixed permutation; learning curves keep their order.
  auto curve = [&](const Trial& t, int64_t it) {
    return ((t.index * 37) % n + 1) * (1 - std::exp(-static_cast<double>(it) / 20));
  };
  auto iterations = test::Simulate(*hb, runner, curve, /*max_iteration=*/1000);
  int64_t total = 0;
  for (size_t i = 0; i < runner.size(); ++i) {
    const Trial& t = runner[i];
    EXPECT_EQ(t.status, TrialStatus::kTerminated) << t.trial_id;
    EXPECT_LE(iterations[t.trial_id], 81) << t.trial_id;
    total += iterations[t.trial_id];
  }
  // Per bracket, sum of n_i * (r_i - r_(i-1)) with n_(i+1) = ceil(n_i / 3):
  //   (81, 1): 81*1 + 27*2 + 9*6 + 3*18 + 1*54 = 297     (34, 3): 102 + 72 + 72 + 108 = 354
  //   (15, 9): 135 + 5*18 + 2*54 = 333   (8, 27): 216 + 3*54 = 378   (5, 81): 405
  EXPECT_EQ(total, 297 + 354 + 333 + 378 + 405);  // FIFO: 143 * 81 = 11583
  // The survivors of every bracket, 1 + 2 + 2 + 3 + 5, ran to max_t.
  int at_max = 0;
  for (const auto& [id, it] : iterations) at_max += it == 81;
  EXPECT_EQ(at_max, 13);
}

}  // namespace
}  // namespace ray::tune
