#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>

#include "runtime/tune/scheduler.h"
#include "tests/test_util/temp_dir.h"
#include "tests/tune/fake_runner.h"

namespace ray::tune {
namespace {

using test::FakeRunner;
using test::Report;

std::unique_ptr<TrialScheduler> Pbt(const Json& extra, uint64_t seed = 0) {
  Json config = Json::parse(R"({
    "time_attr": "training_iteration", "metric": "score", "perturbation_interval": 10,
    "log_config": false, "resample_probability": 0,
    "hyperparam_mutations": {"lr": {"uniform": [0.001, 0.1]}, "batch": [16, 32, 64, 128]}})");
  config.update(extra);
  auto s = MakeScheduler("PBT", config, seed);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return std::move(*s);
}

Json At(int64_t iteration, double score) {
  return {{"training_iteration", iteration}, {"score", score}};
}

void StartAll(FakeRunner& runner) {
  for (Trial* t : runner.Trials()) t->status = TrialStatus::kRunning;
}

// Two running trials: t0 (`top`, score 10) and t1 (score 1) reach iteration 10; t1
// is the bottom quantile and exploits t0. Returns the reset the runner was asked for.
FakeRunner::Reset ExploitOnce(const Json& extra, const Json& top, uint64_t seed) {
  auto pbt = Pbt(extra, seed);
  FakeRunner runner;
  runner.Add(*pbt, top);
  runner.Add(*pbt, top);
  StartAll(runner);
  EXPECT_EQ(Report(*pbt, runner, runner[0], At(10, 10)), Decision::kContinue);
  EXPECT_EQ(Report(*pbt, runner, runner[1], At(10, 1)), Decision::kContinue);
  EXPECT_EQ(runner.resets.size(), 1u);
  return runner.resets.empty() ? FakeRunner::Reset{} : runner.resets[0];
}

TEST(PbtTest, ABottomTrialClonesATopTrialsCheckpointAndPerturbedConfig) {
  auto pbt = Pbt(Json::object());
  FakeRunner runner;
  const double lrs[] = {0.04, 0.03, 0.02, 0.01};
  for (double lr : lrs) runner.Add(*pbt, {{"lr", lr}, {"batch", 64}});
  StartAll(runner);
  // Everyone passes its first perturbation point; scores 4 (t0) down to 1 (t3).
  for (int i = 3; i >= 0; --i) {
    EXPECT_EQ(Report(*pbt, runner, runner[i], At(10, 4 - i)), Decision::kContinue);
  }
  EXPECT_TRUE(runner.resets.empty());
  // Before the next interval nothing happens, however bad.
  EXPECT_EQ(Report(*pbt, runner, runner[3], At(19, -100)), Decision::kContinue);
  // t3 is the bottom quarter (1 of 4) at its next point: it takes t0's state.
  EXPECT_EQ(Report(*pbt, runner, runner[3], At(20, 1)), Decision::kContinue);
  ASSERT_EQ(runner.resets.size(), 1u);
  EXPECT_EQ(runner.saved, std::vector<std::string>{"t0"});  // t0 had no checkpoint
  const auto& reset = runner.resets[0];
  EXPECT_EQ(reset.trial_id, "t3");
  EXPECT_EQ(reset.checkpoint, "ckpt/t0/10");
  const double lr = reset.config["lr"];
  EXPECT_TRUE(std::abs(lr - 0.048) < 1e-12 || std::abs(lr - 0.032) < 1e-12) << lr;
  const int batch = reset.config["batch"];
  EXPECT_TRUE(batch == 32 || batch == 128) << batch;
  char tag[64];
  std::snprintf(tag, sizeof tag, "3@perturbed[batch=%d,lr=%s]", batch,
                lr > 0.04 ? "0.048" : "0.032");
  EXPECT_EQ(reset.tag, tag);
  EXPECT_EQ(pbt->DebugString(), "PopulationBasedTraining: 1 checkpoints, 1 perturbs");

  // A current checkpoint of the top trial is used as it is.
  runner[0].checkpoint = "ckpt/t0/existing";
  runner[0].checkpoint_iteration = 20;
  EXPECT_EQ(Report(*pbt, runner, runner[0], At(20, 4)), Decision::kContinue);
  EXPECT_EQ(Report(*pbt, runner, runner[2], At(20, 0)), Decision::kContinue);
  ASSERT_EQ(runner.resets.size(), 2u);
  EXPECT_EQ(runner.resets[1].trial_id, "t2");
  EXPECT_EQ(runner.resets[1].checkpoint, "ckpt/t0/existing");
  EXPECT_EQ(runner.saved.size(), 1u);
}

TEST(PbtTest, PerturbationsScaleBy1Point2Or0Point8AndMoveToANeighbour) {
  const Json extra = Json::parse(R"({"hyperparam_mutations": {
      "lr": {"loguniform": [1e-4, 1]}, "layers": {"randint": [1, 100]},
      "batch": [16, 32, 64, 128]}})");
  std::set<double> lrs;
  std::set<int64_t> layers;
  std::set<int> batches;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    const auto reset = ExploitOnce(extra, {{"lr", 0.01}, {"layers", 10}, {"batch", 16}}, seed);
    lrs.insert(std::round(reset.config["lr"].get<double>() * 1e6) / 1e6);
    EXPECT_TRUE(reset.config["layers"].is_number_integer());  // ints stay ints
    layers.insert(reset.config["layers"].get<int64_t>());
    batches.insert(reset.config["batch"].get<int>());
  }
  EXPECT_EQ(lrs, (std::set<double>{0.008, 0.012}));
  EXPECT_EQ(layers, (std::set<int64_t>{8, 12}));
  EXPECT_EQ(batches, (std::set<int>{16, 32}));  // 16 is the first value: down stays
}

TEST(PbtTest, ResamplingDrawsFromTheOriginalDistribution) {
  std::set<int> batches;
  for (uint64_t seed = 0; seed < 40; ++seed) {
    const auto reset =
        ExploitOnce({{"resample_probability", 1}}, {{"lr", 0.01}, {"batch", 16}}, seed);
    const double lr = reset.config["lr"];
    EXPECT_GE(lr, 0.001);
    EXPECT_LT(lr, 0.1);
    EXPECT_NE(std::round(lr * 1e6), 12000);
    batches.insert(reset.config["batch"].get<int>());
  }
  EXPECT_EQ(batches, (std::set<int>{16, 32, 64, 128}));
}

TEST(PbtTest, SamplesMissingKeysAndTimeMultiplexesAPopulationLargerThanTheCluster) {
  auto pbt = Pbt(Json::object());
  FakeRunner runner;
  for (int i = 0; i < 3; ++i) runner.Add(*pbt);
  for (size_t i = 0; i < runner.size(); ++i) {
    const double lr = runner[i].config["lr"];
    EXPECT_TRUE(lr >= 0.001 && lr < 0.1) << lr;
    const int batch = runner[i].config["batch"];
    EXPECT_TRUE(batch == 16 || batch == 32 || batch == 64 || batch == 128) << batch;
  }
  // t0 passes its perturbation point while t2 waits: it yields, and the trial
  // that trained least runs next.
  EXPECT_EQ(Report(*pbt, runner, runner[0], At(10, 1)), Decision::kPause);
  EXPECT_EQ(pbt->ChooseTrialToRun(runner), &runner[1]);
  runner[1].status = TrialStatus::kRunning;
  EXPECT_EQ(pbt->ChooseTrialToRun(runner), &runner[2]);
}

TEST(PbtTest, LogConfigWritesRaysPolicyFiles) {
  test_util::TempDir dir;
  auto pbt = Pbt({{"log_config", true}});
  FakeRunner runner;
  for (int i = 0; i < 2; ++i) {
    runner.Add(*pbt, {{"lr", 0.01}, {"batch", 16}});
    runner[i].logdir = dir.path() + "/exp/trial_" + std::to_string(i);
  }
  std::filesystem::create_directories(dir.path() + "/exp");
  StartAll(runner);
  Report(*pbt, runner, runner[0], At(10, 10));
  Report(*pbt, runner, runner[1], At(10, 1));
  ASSERT_EQ(runner.resets.size(), 1u);
  for (const char* file : {"/exp/pbt_global.txt", "/exp/pbt_policy_t1.txt"}) {
    std::ifstream in(dir.path() + file);
    std::string line;
    ASSERT_TRUE(std::getline(in, line)) << file;
    const Json policy = Json::parse(line);
    EXPECT_EQ(policy, Json({"1", "0", 10, 10, runner[0].config, runner.resets[0].config}));
  }
}

}  // namespace
}  // namespace ray::tune
