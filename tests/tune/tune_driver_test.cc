// The driver of `tune run`: experiments from Tune's YAML and flags, and a trial's
// CPUs from a plugin's DefaultResourceRequest (the example plugin's and PPO's).

#include "runtime/tune/tune_driver.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace ray::tune {
namespace {

class TuneDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ =
        std::filesystem::temp_directory_path() / ("tune_driver_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  std::string dir_;
};

TEST_F(TuneDriverTest, FlagsAloneMakeOneExperiment) {
  ExperimentSources sources;
  sources.given = {{"trainable", "quadratic"}, {"num_samples", 3}, {"stop", {{"loss", 1}}}};
  auto specs = BuildExperiments(sources);
  ASSERT_TRUE(specs.ok()) << specs.status().ToString();
  ASSERT_EQ(specs->size(), 1u);
  EXPECT_EQ((*specs)[0].trainable, "quadratic");
  EXPECT_EQ((*specs)[0].num_samples, 3);
  EXPECT_EQ((*specs)[0].stop, Json({{"loss", 1}}));
}

TEST_F(TuneDriverTest, EveryEntryOfTheFileIsAnExperimentAndFlagsWin) {
  ExperimentSources sources;
  sources.file = Write("exp.yaml",
                       "first:\n  run: quadratic\n  num_samples: 2\n"
                       "second:\n  run: train_func\n  resources_per_trial: {cpu: 2}\n");
  sources.given = {{"num_samples", 5}};
  auto specs = BuildExperiments(sources);
  ASSERT_TRUE(specs.ok()) << specs.status().ToString();
  ASSERT_EQ(specs->size(), 2u);
  EXPECT_EQ((*specs)[0].name, "first");
  EXPECT_EQ((*specs)[0].trainable, "quadratic");
  EXPECT_EQ((*specs)[0].num_samples, 5) << "the flag wins over the file";
  EXPECT_EQ((*specs)[1].name, "second");
  EXPECT_EQ((*specs)[1].trainable, "train_func");
  EXPECT_EQ((*specs)[1].resources_per_trial.at("CPU"), 2.0);
}

TEST_F(TuneDriverTest, MistakesNameTheFileTheExperimentAndTheKey) {
  ExperimentSources sources;
  sources.file = Write("bad.yaml", "exp:\n  run: quadratic\n  stop: 3\n");
  auto bad_stop = BuildExperiments(sources);
  EXPECT_EQ(bad_stop.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad_stop.status().message(), sources.file + ": exp.stop must be a JSON object");

  sources.file = Write("list.yaml", "- a\n- b\n");
  auto list = BuildExperiments(sources);
  EXPECT_EQ(list.status().message(), sources.file + ": expected a mapping of experiment names");

  sources.file = "";
  sources.given = {{"mode", "sideways"}};
  EXPECT_EQ(BuildExperiments(sources).status().message(), "mode must be max or min");

  sources.given = {{"resources_per_trial", {{"cpu", "many"}}}};
  EXPECT_FALSE(BuildExperiments(sources).ok());
}

TEST_F(TuneDriverTest, ATrialTakesTheCpusItsTrainableRequests) {
  // The example trainables have no DefaultResourceRequest: one CPU.
  auto one = TrialCpus(TUNE_TRAINABLES_PLUGIN, "quadratic", Json::object());
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  EXPECT_EQ(*one, 1.0);
  // PPO holds its rollout workers' CPUs as extra CPUs.
  auto ppo = TrialCpus(PPO_PLUGIN, "PPO", {{"num_workers", 3}, {"num_cpus_per_worker", 2}});
  ASSERT_TRUE(ppo.ok()) << ppo.status().ToString();
  EXPECT_EQ(*ppo, 1.0 + 3 * 2);
  EXPECT_EQ(TrialCpus("/nonexistent/plugin.so", "PPO", Json::object()).status().code(),
            StatusCode::kNotFound);
}

}  // namespace
}  // namespace ray::tune
