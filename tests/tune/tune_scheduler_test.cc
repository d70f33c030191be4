#include <gtest/gtest.h>

#include "runtime/tune/scheduler.h"
#include "tests/tune/fake_runner.h"

namespace ray::tune {
namespace {

using test::FakeRunner;

std::unique_ptr<TrialScheduler> Make(const std::string& name, const Json& config = Json::object()) {
  auto s = MakeScheduler(name, config, 0);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(*s) : nullptr;
}

// The error's message, or "" when `name` accepts `config`.
std::string Error(const std::string& name, const Json& config) {
  auto s = MakeScheduler(name, config, 0);
  if (s.ok()) return "";
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  return s.status().message();
}

TEST(FifoSchedulerTest, RunsPendingTrialsThenPausedOnesInCreationOrder) {
  auto fifo = Make("FIFO");
  FakeRunner runner(/*slots=*/2);
  for (int i = 0; i < 3; ++i) runner.Add(*fifo);
  runner[0].status = TrialStatus::kPaused;

  EXPECT_EQ(fifo->ChooseTrialToRun(runner), &runner[1]);
  runner[1].status = TrialStatus::kRunning;
  EXPECT_EQ(fifo->ChooseTrialToRun(runner), &runner[2]);
  runner[2].status = TrialStatus::kRunning;
  EXPECT_EQ(fifo->ChooseTrialToRun(runner), nullptr);  // both slots taken
  runner[2].status = TrialStatus::kTerminated;
  EXPECT_EQ(fifo->ChooseTrialToRun(runner), &runner[0]);

  EXPECT_EQ(fifo->OnTrialResult(runner, runner[1], {{"training_iteration", 1}}),
            Decision::kContinue);
  EXPECT_EQ(fifo->DebugString(), "Using FIFO scheduling algorithm.");
}

TEST(MakeSchedulerTest, KnowsRaysNamesAndAliases) {
  const Json pbt = Json::parse(R"({"hyperparam_mutations": {"lr": [0.1, 0.01]}})");
  for (const char* name :
       {"FIFO", "AsyncHyperBand", "ASHA", "HyperBand", "MedianStopping", "MedianStoppingRule"}) {
    EXPECT_NE(Make(name), nullptr) << name;
  }
  EXPECT_NE(Make("PBT", pbt), nullptr);
  EXPECT_NE(Make("PopulationBasedTraining", pbt), nullptr);
  EXPECT_NE(Make("ASHA", nullptr), nullptr);  // no config at all
  EXPECT_NE(Error("Hyperband", {}).find("unknown scheduler 'Hyperband'"), std::string::npos);
}

TEST(MakeSchedulerTest, RejectsUnknownKeysAndBadValuesNamingTheKey) {
  const std::vector<std::tuple<std::string, Json, std::string>> cases = {
      {"FIFO", {{"metric", "x"}}, "FIFO: unknown key 'metric'"},
      {"ASHA", {{"grace", 1}}, "AsyncHyperBand: unknown key 'grace'"},
      {"ASHA", {{"reduction_factor", 1}}, "AsyncHyperBand: reduction_factor must be > 1"},
      {"ASHA", {{"grace_period", 200}}, "AsyncHyperBand: grace_period must be <= max_t"},
      {"ASHA", {{"brackets", 1.5}}, "AsyncHyperBand: brackets must be an integer"},
      {"ASHA", {{"mode", "maximize"}}, "AsyncHyperBand: mode must be 'max' or 'min'"},
      {"HyperBand", {{"max_t", "81"}}, "HyperBand: max_t must be a number"},
      {"HyperBand", {{"time_attr", ""}}, "HyperBand: time_attr must be a non-empty string"},
      {"MedianStopping", {{"hard_stop", 1}}, "MedianStopping: hard_stop must be true or false"},
      {"MedianStopping", {{"min_samples_required", 0}}, "min_samples_required must be >= 1"},
      {"PBT", {}, "PopulationBasedTraining: hyperparam_mutations must be a non-empty object"},
      {"PBT", Json::parse(R"({"hyperparam_mutations": {"lr": {"uniform": [1]}}})"),
       "PopulationBasedTraining: hyperparam_mutations.lr: uniform needs [low, high]"},
      {"PBT", Json::parse(R"({"hyperparam_mutations": {"opt": {"lr": {"grid_search": [1, 2]}}}})"),
       "hyperparam_mutations.opt.lr: cannot be a grid_search or sample_from"},
      {"PBT", Json::parse(R"({"hyperparam_mutations": {"lr": []}})"),
       "hyperparam_mutations.lr: needs a non-empty list"},
      {"PBT", Json::parse(R"({"hyperparam_mutations": {"lr": [0.1]}, "quantile_fraction": 0.6})"),
       "quantile_fraction must be in [0, 0.5]"},
      {"HyperBand", Json::array(), "HyperBand: the config must be a JSON object"},
  };
  for (const auto& [name, config, expected] : cases) {
    EXPECT_NE(Error(name, config).find(expected), std::string::npos)
        << name << " " << config.dump() << " -> '" << Error(name, config) << "'";
  }
}

}  // namespace
}  // namespace ray::tune
