// `ray tune list-trials` / `ray tune list-experiments` (ls / lsx) on synthetic
// experiment dirs: the table, --sort, --filter, --columns, --output, and the
// messages and exit codes for bad input.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/ray_harness.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using ray::testing::ReadText;
using ray::testing::RunCommand;
using ray::testing::RunRay;
using ray::testing::RunResult;
using ray::testing::TempDir;

void Write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

json Result(int iteration, double reward, bool done) {
  return {{"training_iteration", iteration},
          {"episode_reward_mean", reward},
          {"done", done},
          {"timestamp", 1700000000 + iteration}};
}

// An experiment as `tune run` lays it out: experiment_state.json and a dir per trial.
// Trial i has id "t000000<i>", config {"lr": lrs[i]}, and two results, the last one
// with episode_reward_mean rewards[i].
void WriteExperiment(const fs::path& dir, const std::vector<double>& lrs,
                     const std::vector<double>& rewards, const std::vector<std::string>& statuses) {
  json trials = json::array();
  for (size_t i = 0; i < lrs.size(); ++i) {
    std::string id = "t000000" + std::to_string(i);
    std::string tag = std::to_string(i) + "_lr=" + json(lrs[i]).dump();
    fs::path logdir = dir / ("train_fn_" + tag + "_" + id);
    json config = {{"lr", lrs[i]}};
    Write(logdir / "params.json", config.dump());
    double reward = rewards[i];
    Write(logdir / "result.json", Result(1, reward / 2, false).dump() + "\n" +
                                      Result(2, reward, statuses[i] == "TERMINATED").dump() + "\n");
    trials.push_back({{"trial_id", id},
                      {"index", i},
                      {"trainable_name", "train_fn"},
                      {"experiment_tag", tag},
                      {"config", config},
                      {"status", statuses[i]},
                      {"logdir", logdir.string()},
                      {"last_result", nullptr}});
  }
  Write(dir / "experiment_state.json", json{{"name", dir.filename().string()},
                                            {"trainable", "train_fn"},
                                            {"timestamp", 1700000100},
                                            {"spec", json::object()},
                                            {"searcher", json::object()},
                                            {"trials", trials}}
                                           .dump());
}

// Rows of the printed table whose text contains `needle`, in order.
std::vector<std::string> Rows(const std::string& out, const std::string& needle) {
  std::vector<std::string> rows;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("| ") && line.find(needle) != std::string::npos) rows.push_back(line);
  }
  return rows;
}

class TuneListTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv("COLUMNS");
    project_ = fs::path(tmp_.path()) / "ray_results";
    WriteExperiment(project_ / "sweep", {0.01, 0.03, 0.02}, {10, 30, 20},
                    {"TERMINATED", "ERROR", "RUNNING"});
    WriteExperiment(project_ / "single", {0.05}, {50}, {"TERMINATED"});
    // As `rllib train` leaves it: trial dirs only.
    fs::path ppo = project_ / "cartpole-ppo" / "PPO_CartPole-v1_2026-11-22_06-39-34";
    Write(ppo / "params.json", R"({"lr": 0.003})");
    json done = Result(60, 477.5, true);
    done["trial_id"] = "e5f399ff";
    Write(ppo / "result.json", done.dump() + "\n");
    fs::create_directories(project_ / "notes");
  }
  void TearDown() override { ::unsetenv("COLUMNS"); }

  RunResult Ray(std::vector<std::string> args) { return RunRay(args, tmp_.path()); }
  std::string Exp(const std::string& name) const { return (project_ / name).string(); }

  TempDir tmp_;
  fs::path project_;
};

TEST_F(TuneListTest, ListTrialsPrintsATable) {
  auto r = Ray({"tune", "list-trials", Exp("sweep")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* col : {"trainable_name", "experiment_tag", "trial_id", "status",
                          "last_update_time", "training_iteration"}) {
    EXPECT_NE(r.out.find(col), std::string::npos) << col << "\n" << r.out;
  }
  EXPECT_EQ(Rows(r.out, "train_fn").size(), 3u) << r.out;
  EXPECT_EQ(Rows(r.out, "TERMINATED").size(), 1u) << r.out;
  EXPECT_EQ(Rows(r.out, "ERROR").size(), 1u) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)"))) << r.out;
  // The results hold none of these default result columns.
  EXPECT_NE(r.out.find("Dropped columns: ['time_total_s', 'timesteps_total', 'mean_accuracy', "
                       "'mean_loss']"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("terminal size"), std::string::npos) << r.out;
}

TEST_F(TuneListTest, SortFilterColumnsAndCsv) {
  std::string csv = tmp_.path() + "/trials.csv";
  auto r = Ray({"tune", "ls", Exp("sweep"), "--sort", "episode_reward_mean", "--filter",
                "episode_reward_mean > 15", "--columns", "trial_id,status,config/lr",
                "--result-columns", "episode_reward_mean,training_iteration", "--output", csv});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = Rows(r.out, "t000000");
  ASSERT_EQ(rows.size(), 2u) << r.out;  // rewards 20 and 30; 10 is filtered out
  EXPECT_NE(rows[0].find("t0000002"), std::string::npos) << r.out;
  EXPECT_NE(rows[1].find("t0000001"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Dropped columns"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Output saved at: " + csv), std::string::npos) << r.out;
  EXPECT_EQ(ReadText(csv),
            "trial_id,status,config/lr,episode_reward_mean,training_iteration\n"
            "t0000002,RUNNING,0.02,20.0,2\n"
            "t0000001,ERROR,0.03,30.0,2\n");

  auto desc = Ray({"tune", "ls", Exp("sweep"), "--sort", "config/lr", "--desc", "--columns",
                   "trial_id,config/lr"});
  ASSERT_EQ(desc.exit_code, 0) << desc.err;
  rows = Rows(desc.out, "t000000");
  ASSERT_EQ(rows.size(), 3u) << desc.out;
  EXPECT_NE(rows[0].find("t0000001"), std::string::npos) << desc.out;
  EXPECT_NE(rows[2].find("t0000000"), std::string::npos) << desc.out;

  auto text = Ray({"tune", "ls", Exp("sweep"), "--filter", "trial_id == t0000001"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(Rows(text.out, "t000000").size(), 1u) << text.out;
}

TEST_F(TuneListTest, ListsTrialDirsWithoutAStateFile) {
  // Through the `tune` name of the binary, too.
  std::string tune = (fs::path(RAY_BINARY).parent_path() / "tune").string();
  auto r = RunCommand({tune, "ls", Exp("cartpole-ppo"), "--result-columns", "episode_reward_mean"},
                      tmp_.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = Rows(r.out, "PPO");
  ASSERT_EQ(rows.size(), 1u) << r.out;
  EXPECT_NE(rows[0].find("CartPole-v1"), std::string::npos) << r.out;
  EXPECT_NE(rows[0].find("e5f399ff"), std::string::npos) << r.out;
  EXPECT_NE(rows[0].find("TERMINATED"), std::string::npos) << r.out;
  EXPECT_NE(rows[0].find("477.5"), std::string::npos) << r.out;
}

TEST_F(TuneListTest, ListExperimentsCountsTrials) {
  auto r = Ray({"tune", "list-experiments", project_.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* col : {"name", "total_trials", "running_trials", "terminated_trials",
                          "error_trials", "last_updated"}) {
    EXPECT_NE(r.out.find(col), std::string::npos) << col << "\n" << r.out;
  }
  auto sweep = Rows(r.out, "sweep");
  ASSERT_EQ(sweep.size(), 1u) << r.out;
  EXPECT_TRUE(std::regex_search(sweep[0], std::regex(R"(\|\s+3 \|\s+1 \|\s+1 \|\s+1 \|)")))
      << sweep[0];
  EXPECT_EQ(Rows(r.out, "cartpole-ppo").size(), 1u) << r.out;
  EXPECT_EQ(Rows(r.out, "notes").size(), 0u) << r.out;

  std::string csv = tmp_.path() + "/experiments.CSV";
  auto few = Ray({"tune", "lsx", project_.string(), "--filter", "total_trials <= 1", "--sort",
                  "name", "--columns", "name,total_trials", "--output", csv});
  ASSERT_EQ(few.exit_code, 0) << few.err;
  EXPECT_EQ(ReadText(csv), "name,total_trials\ncartpole-ppo,1\nsingle,1\n");
  EXPECT_NE(few.out.find("Output saved at: " + csv), std::string::npos) << few.out;
}

TEST_F(TuneListTest, ListExperimentsDefaultsToTheResultDir) {
  ::setenv("TUNE_RESULT_DIR", project_.c_str(), 1);
  auto r = Ray({"tune", "lsx"});
  ::unsetenv("TUNE_RESULT_DIR");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Rows(r.out, "single").size(), 1u) << r.out;

  fs::create_directories(fs::path(tmp_.path()) / "empty");
  auto none = Ray({"tune", "lsx", tmp_.path() + "/empty"});
  EXPECT_EQ(none.exit_code, 0) << none.err;
  EXPECT_NE(none.out.find("No experiments found"), std::string::npos) << none.out;
}

TEST_F(TuneListTest, NarrowTerminalDropsColumns) {
  ::setenv("COLUMNS", "60", 1);
  auto r = Ray({"tune", "ls", Exp("sweep")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Please increase your terminal size to view remaining columns."),
            std::string::npos)
      << r.out;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("|") || line.starts_with("+")) {
      EXPECT_LE(line.size(), 60u) << line;
    }
  }
}

TEST_F(TuneListTest, BadInputFailsWithAMessage) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  std::string exp = Exp("sweep");
  std::vector<Case> cases = {
      {{"tune", "ls", Exp("missing")}, "ray tune list-trials: no such directory"},
      {{"tune", "ls", Exp("notes")}, "ray tune list-trials: "},
      {{"tune", "ls", exp, "--filter", "status"}, "malformed filter"},
      {{"tune", "ls", exp, "--filter", "status ~ x"}, "malformed filter"},
      {{"tune", "ls", exp, "--filter", "color == red"}, "unknown column 'color'"},
      {{"tune", "ls", exp, "--sort", "color"}, "--sort: unknown column 'color'"},
      {{"tune", "ls", exp, "--columns", "trial_id,color"}, "unknown column 'color'"},
      {{"tune", "ls", exp, "--output", tmp_.path() + "/t.pkl"}, "only .csv"},
      {{"tune", "lsx", Exp("missing")}, "ray tune list-experiments: no such directory"},
      {{"tune", "lsx", project_.string(), "--sort", "size"}, "unknown column 'size'"},
  };
  for (const auto& c : cases) {
    auto r = Ray(c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args.back() << ": " << r.all();
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args.back() << ": " << r.err;
    EXPECT_EQ(r.out, "") << c.args.back();
  }
  auto notes = Ray({"tune", "ls", Exp("notes")});
  EXPECT_NE(notes.err.find("not an experiment"), std::string::npos) << notes.err;
  EXPECT_FALSE(fs::exists(tmp_.path() + "/t.pkl"));
}

}  // namespace
