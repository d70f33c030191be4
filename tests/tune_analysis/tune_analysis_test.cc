#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runtime/tune/analysis.h"
#include "tests/test_util/temp_dir.h"

namespace ray::tune {
namespace {

namespace fs = std::filesystem;
using test_util::TempDir;

std::string Hostname() {
  char host[256] = {0};
  ::gethostname(host, sizeof(host) - 1);
  return host;
}

void Write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// A trial dir: params.json, one result.json line per result, then `tail` verbatim.
void WriteTrialDir(const fs::path& dir, const Json& config, const std::vector<Json>& results,
                   const std::string& tail = "") {
  Write(dir / "params.json", config.dump(2));
  std::string lines;
  for (const auto& r : results) lines += r.dump() + "\n";
  Write(dir / "result.json", lines + tail);
}

Json MakeResult(int iteration, double reward, bool done = false) {
  return {{"training_iteration", iteration},
          {"episode_reward_mean", reward},
          {"done", done},
          {"timestamp", 1700000000 + iteration},
          {"info", {{"learner", {{"kl", 0.01 * iteration}}}}}};
}

// An experiment as `tune run` writes it: trials (id, tag, status, lr, final reward).
struct TrialSpec {
  std::string id;
  TrialStatus status;
  double lr;
  std::optional<double> reward;  // nullopt: no result yet
};

void WriteExperiment(const fs::path& dir, const std::vector<TrialSpec>& specs) {
  Json trials = Json::array();
  int index = 0;
  for (const auto& s : specs) {
    Trial t;
    t.trial_id = s.id;
    t.index = index;
    t.trainable = "train_fn";
    t.experiment_tag = std::to_string(index++) + "_lr=" + Json(s.lr).dump();
    t.config = {{"lr", s.lr}, {"model", {{"width", 64}}}};
    t.status = s.status;
    t.logdir = (dir / ("train_fn_" + t.experiment_tag + "_" + s.id)).string();
    if (s.reward) {
      // The state file lags behind result.json: it still holds the first result.
      t.last_result = MakeResult(1, 0.0);
      WriteTrialDir(
          t.logdir, t.config,
          {MakeResult(1, 0.0), MakeResult(2, *s.reward / 2), MakeResult(3, *s.reward, true)});
    } else {
      fs::create_directories(t.logdir);
    }
    trials.push_back(t.ToJson());
  }
  Write(dir / "experiment_state.json", Json{{"name", dir.filename().string()},
                                            {"trainable", "train_fn"},
                                            {"timestamp", 1600000000.5},
                                            {"spec", Json::object()},
                                            {"searcher", Json::object()},
                                            {"trials", trials}}
                                           .dump());
}

TEST(ExperimentAnalysisTest, LoadsTheStateFileAndTheNewestResults) {
  TempDir tmp;
  fs::path exp = fs::path(tmp.path()) / "exp";
  WriteExperiment(exp, {{"aaaa0001", TrialStatus::kTerminated, 0.1, 10.0},
                        {"aaaa0002", TrialStatus::kError, 0.01, 30.0},
                        {"aaaa0003", TrialStatus::kPending, 0.001, std::nullopt}});
  auto a = ExperimentAnalysis::Load(exp.string() + "/");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->name(), "exp");
  EXPECT_EQ(a->dir(), exp.string());
  ASSERT_EQ(a->trials().size(), 3u);
  EXPECT_EQ(a->trials()[0].trial.trial_id, "aaaa0001");
  EXPECT_EQ(a->trials()[0].status, "TERMINATED");
  EXPECT_EQ(a->trials()[1].status, "ERROR");
  EXPECT_EQ(a->trials()[2].status, "PENDING");
  EXPECT_EQ(a->trials()[0].trial.Metric("training_iteration"), 3.0);
  EXPECT_EQ(a->trials()[1].trial.Metric("episode_reward_mean"), 30.0);
  EXPECT_EQ(a->trials()[0].last_update_time, 1700000003);
  EXPECT_EQ(a->trials()[2].last_update_time, 0);
  EXPECT_EQ(a->last_updated(), 1700000003);
}

TEST(ExperimentAnalysisTest, FindsTrialsOfAMovedExperiment) {
  TempDir tmp;
  fs::path exp = fs::path(tmp.path()) / "exp";
  WriteExperiment(exp, {{"aaaa0001", TrialStatus::kTerminated, 0.1, 10.0}});
  fs::rename(exp, fs::path(tmp.path()) / "moved");
  auto a = ExperimentAnalysis::Load(tmp.path() + "/moved");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->trials()[0].trial.Metric("training_iteration"), 3.0);
  EXPECT_EQ(fs::path(a->trials()[0].trial.logdir).parent_path(), fs::path(tmp.path()) / "moved");
}

TEST(ExperimentAnalysisTest, BestTrialAndConfigForMaxAndMin) {
  TempDir tmp;
  fs::path exp = fs::path(tmp.path()) / "exp";
  WriteExperiment(exp, {{"aaaa0001", TrialStatus::kTerminated, 0.1, 10.0},
                        {"aaaa0002", TrialStatus::kTerminated, 0.01, 30.0},
                        {"aaaa0003", TrialStatus::kTerminated, 0.001, -5.0},
                        {"aaaa0004", TrialStatus::kPending, 0.5, std::nullopt}});
  auto a = ExperimentAnalysis::Load(exp.string());
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto best = a->BestTrial("episode_reward_mean", Mode::kMax);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->trial.trial_id, "aaaa0002");
  EXPECT_EQ(a->BestConfig("episode_reward_mean", Mode::kMax)->at("lr"), 0.01);
  EXPECT_EQ(a->BestTrial("episode_reward_mean", Mode::kMin)->trial.trial_id, "aaaa0003");
  EXPECT_EQ(a->BestConfig("episode_reward_mean", Mode::kMin)->at("lr"), 0.001);
  EXPECT_FALSE(a->BestTrial("mean_accuracy", Mode::kMax));
  EXPECT_FALSE(a->BestConfig("mean_accuracy", Mode::kMin));

  EXPECT_EQ(*ParseMode("max"), Mode::kMax);
  EXPECT_EQ(*ParseMode("min"), Mode::kMin);
  EXPECT_EQ(ParseMode("best").status().code(), StatusCode::kInvalidArgument);
}

TEST(ExperimentAnalysisTest, SkipsATruncatedLastResultLine) {
  TempDir tmp;
  fs::path exp = fs::path(tmp.path()) / "exp";
  WriteTrialDir(exp / "PPO_CartPole-v1_2026-01-02_03-04-05", {{"lr", 0.1}},
                {MakeResult(1, 5.0), MakeResult(2, 7.0)},
                R"({"training_iteration": 3, "episode_rew)");
  auto a = ExperimentAnalysis::Load(exp.string());
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_EQ(a->trials().size(), 1u);
  EXPECT_EQ(a->trials()[0].trial.Metric("training_iteration"), 2.0);
  EXPECT_EQ(a->trials()[0].trial.Metric("episode_reward_mean"), 7.0);
}

TEST(ExperimentAnalysisTest, ReadsTheLastResultOfALongFile) {
  TempDir tmp;
  fs::path exp = fs::path(tmp.path()) / "exp";
  std::vector<Json> results;
  for (int i = 1; i <= 2000; ++i) results.push_back(MakeResult(i, i));
  // A last line longer than the first window read from the end.
  Json big = MakeResult(2001, 2001.0);
  big["blob"] = std::string(200 * 1024, 'x');
  results.push_back(big);
  WriteTrialDir(exp / "PPO_CartPole-v1_2026-01-02_03-04-05", Json::object(), results, "{\"trunc");
  auto a = ExperimentAnalysis::Load(exp.string());
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->trials()[0].trial.Metric("training_iteration"), 2001.0);
}

TEST(ExperimentAnalysisTest, ReadsTrialDirsWithoutAStateFile) {
  TempDir tmp;
  fs::path exp = fs::path(tmp.path()) / "cartpole-ppo";
  Json done = MakeResult(60, 477.5, true);
  done["trial_id"] = "e5f399ff";
  WriteTrialDir(exp / "PPO_CartPole-v1_2026-11-22_06-39-34", {{"lr", 0.003}}, {done});
  fs::create_directories(exp / "PPO_CartPole-v1_2026-11-22_06-39-34" / "checkpoint_2");
  fs::create_directories(exp / "PPO_CartPole-v1_2026-11-22_06-39-34" / "checkpoint_10");
  fs::create_directories(exp / "PPO_CartPole-v1_2026-11-22_06-39-34" / "checkpoint_x");
  // Still being written by this process.
  Json running = MakeResult(3, 20.0);
  running["trial_id"] = "0000beef";
  running["pid"] = static_cast<int>(::getpid());
  running["hostname"] = Hostname();
  WriteTrialDir(exp / "PPO_CartPole-v1_2026-11-22_07-00-00", {{"lr", 0.01}}, {running});
  // Not done, and its process is gone.
  Json gone = MakeResult(2, 9.0);
  gone["pid"] = 0;
  gone["hostname"] = Hostname();
  WriteTrialDir(exp / "DQN_Pong_2026-11-22_08-00-00", {{"lr", 0.5}}, {gone});
  fs::create_directories(exp / "not_a_trial");

  auto a = ExperimentAnalysis::Load(exp.string());
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->name(), "cartpole-ppo");
  ASSERT_EQ(a->trials().size(), 3u);  // by dir name
  const auto& dqn = a->trials()[0];
  const auto& ppo = a->trials()[1];
  const auto& ppo2 = a->trials()[2];
  EXPECT_EQ(ppo.trial.trainable, "PPO");
  EXPECT_EQ(ppo.trial.experiment_tag, "CartPole-v1");
  EXPECT_EQ(ppo.trial.trial_id, "e5f399ff");
  EXPECT_EQ(ppo.status, "TERMINATED");
  EXPECT_EQ(ppo.trial.config["lr"], 0.003);
  EXPECT_EQ(ppo2.status, "RUNNING");
  EXPECT_EQ(dqn.trial.trainable, "DQN");
  EXPECT_EQ(dqn.trial.experiment_tag, "Pong");
  EXPECT_EQ(dqn.status, "UNKNOWN");

  EXPECT_EQ(a->BestTrial("episode_reward_mean", Mode::kMax)->trial.trial_id, "e5f399ff");
  auto checkpoint = a->BestCheckpoint("episode_reward_mean", Mode::kMax);
  ASSERT_TRUE(checkpoint);
  EXPECT_EQ(fs::path(*checkpoint).filename(), "checkpoint_10");
  EXPECT_FALSE(a->BestCheckpoint("episode_reward_mean", Mode::kMin));
  EXPECT_FALSE(ExperimentAnalysis::BestCheckpoint(dqn.trial));
}

TEST(ExperimentAnalysisTest, RejectsWhatIsNotAnExperiment) {
  TempDir tmp;
  EXPECT_EQ(ExperimentAnalysis::Load(tmp.path() + "/missing").status().code(),
            StatusCode::kNotFound);
  fs::create_directories(fs::path(tmp.path()) / "empty" / "sub");
  auto empty = ExperimentAnalysis::Load(tmp.path() + "/empty");
  EXPECT_EQ(empty.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(empty.status().message().find("not an experiment"), std::string::npos);
  Write(fs::path(tmp.path()) / "corrupt" / "experiment_state.json", "{\"trials\": [");
  EXPECT_EQ(ExperimentAnalysis::Load(tmp.path() + "/corrupt").status().code(),
            StatusCode::kDataLoss);
  Write(fs::path(tmp.path()) / "bad_trial" / "experiment_state.json", R"({"trials": [7]})");
  EXPECT_EQ(ExperimentAnalysis::Load(tmp.path() + "/bad_trial").status().code(),
            StatusCode::kDataLoss);
}

TEST(ListTrialsTest, DefaultInfoAndResultColumns) {
  TempDir tmp;
  fs::path exp = fs::path(tmp.path()) / "exp";
  WriteExperiment(exp, {{"aaaa0001", TrialStatus::kTerminated, 0.1, 10.0}});
  auto a = ExperimentAnalysis::Load(exp.string());
  ASSERT_TRUE(a.ok());
  auto t = ListTrials(*a);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->columns,
            (std::vector<std::string>{"trainable_name", "experiment_tag", "trial_id", "status",
                                      "last_update_time", "training_iteration", "time_total_s",
                                      "timesteps_total", "mean_accuracy", "mean_loss"}));
  ASSERT_EQ(t->rows.size(), 1u);
  EXPECT_EQ(t->rows[0][0], "train_fn");
  EXPECT_EQ(t->rows[0][1], "0_lr=0.1");
  EXPECT_EQ(t->rows[0][3], "TERMINATED");
  EXPECT_EQ(t->rows[0][4].get<std::string>().size(), std::string("2023-11-14 22:13:23").size());
  EXPECT_EQ(t->rows[0][5], 3);
  EXPECT_TRUE(t->rows[0][6].is_null());
}

TEST(ListTrialsTest, ConfigNestedResultAndLogdirColumns) {
  TempDir tmp;
  fs::path exp = fs::path(tmp.path()) / "exp";
  WriteExperiment(exp, {{"aaaa0001", TrialStatus::kTerminated, 0.1, 10.0}});
  auto a = ExperimentAnalysis::Load(exp.string());
  ASSERT_TRUE(a.ok());
  auto t = ListTrials(*a, {{"trial_id", "config/lr", "config/model/width", "logdir"},
                           {"trial_id", "info/learner/kl", "episode_reward_mean"}});
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->columns,
            (std::vector<std::string>{"trial_id", "config/lr", "config/model/width", "logdir",
                                      "info/learner/kl", "episode_reward_mean"}));
  EXPECT_EQ(t->rows[0][1], 0.1);
  EXPECT_EQ(t->rows[0][2], 64);
  EXPECT_EQ(t->rows[0][3], "train_fn_0_lr=0.1_aaaa0001");
  EXPECT_DOUBLE_EQ(t->rows[0][4].get<double>(), 0.03);
  EXPECT_EQ(t->rows[0][5], 10.0);

  auto bad = ListTrials(*a, {{"trial_id", "nope"}, {}});
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("'nope'"), std::string::npos);
}

TEST(ListExperimentsTest, CountsTrialsByStatus) {
  TempDir tmp;
  fs::path project = tmp.path();
  WriteExperiment(project / "a_exp", {{"aaaa0001", TrialStatus::kTerminated, 0.1, 10.0},
                                      {"aaaa0002", TrialStatus::kTerminated, 0.2, 11.0},
                                      {"aaaa0003", TrialStatus::kError, 0.3, 12.0},
                                      {"aaaa0004", TrialStatus::kRunning, 0.4, std::nullopt},
                                      {"aaaa0005", TrialStatus::kPending, 0.5, std::nullopt}});
  WriteTrialDir(project / "b_rllib" / "PPO_CartPole-v1_2026-11-22_06-39-34", Json::object(),
                {MakeResult(1, 1.0, true)});
  fs::create_directories(project / "c_notes");
  Write(project / "d_broken" / "experiment_state.json", "not json");

  std::vector<std::string> unreadable;
  auto t = ListExperiments(project.string(), kExperimentColumns, &unreadable);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->columns, kExperimentColumns);
  ASSERT_EQ(t->rows.size(), 2u);
  EXPECT_EQ(t->rows[0], (std::vector<Json>{"a_exp", 5, 1, 2, 1, t->rows[0][5]}));
  EXPECT_TRUE(t->rows[0][5].is_string());
  EXPECT_EQ(t->rows[1], (std::vector<Json>{"b_rllib", 1, 0, 1, 0, t->rows[1][5]}));
  ASSERT_EQ(unreadable.size(), 1u);
  EXPECT_EQ(unreadable[0].rfind("d_broken: ", 0), 0u);

  auto pending = ListExperiments(project.string(), {"name", "pending_trials", "paused_trials"});
  ASSERT_TRUE(pending.ok());
  EXPECT_EQ(pending->rows[0], (std::vector<Json>{"a_exp", 1, 0}));

  EXPECT_EQ(ListExperiments(project.string() + "/missing").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ListExperiments(project.string(), {"name", "size"}).status().code(),
            StatusCode::kInvalidArgument);
}

Table Sample() {
  return {{"id", "score", "tag"},
          {{"a", 10, "x"}, {"b", 2.5, nullptr}, {"c", nullptr, "y"}, {"d", 100, "x"}}};
}

std::vector<Json> Ids(const Table& t) {
  std::vector<Json> ids;
  for (const auto& row : t.rows) ids.push_back(row[0]);
  return ids;
}

TEST(TableTest, FiltersNumericallyOrAsText) {
  Table t = Sample();
  ASSERT_TRUE(FilterRows(t, "score >= 10").ok());
  EXPECT_EQ(Ids(t), (std::vector<Json>{"a", "d"}));  // 100 >= 10 as numbers
  t = Sample();
  ASSERT_TRUE(FilterRows(t, "tag == x").ok());
  EXPECT_EQ(Ids(t), (std::vector<Json>{"a", "d"}));
  t = Sample();
  ASSERT_TRUE(FilterRows(t, "tag != x").ok());
  EXPECT_EQ(Ids(t), (std::vector<Json>{"b", "c"}));  // an empty cell is != anything
  t = Sample();
  ASSERT_TRUE(FilterRows(t, "id < 'c'").ok());
  EXPECT_EQ(Ids(t), (std::vector<Json>{"a", "b"}));
  t = Sample();
  ASSERT_TRUE(FilterRows(t, "score == 2.5").ok());
  EXPECT_EQ(Ids(t), (std::vector<Json>{"b"}));

  for (const char* bad : {"score", "score >=", "score => 1", "score ~ 1", ""}) {
    Table u = Sample();
    Status s = FilterRows(u, bad);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("malformed filter"), std::string::npos) << bad;
  }
  Status unknown = FilterRows(t, "nope == 1");
  EXPECT_EQ(unknown.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.message().find("unknown column 'nope'"), std::string::npos);
}

TEST(TableTest, SortsNumbersByValueAndEmptyCellsLast) {
  Table t = Sample();
  ASSERT_TRUE(SortRows(t, "score").ok());
  EXPECT_EQ(Ids(t), (std::vector<Json>{"b", "a", "d", "c"}));
  ASSERT_TRUE(SortRows(t, "score", /*descending=*/true).ok());
  EXPECT_EQ(Ids(t), (std::vector<Json>{"d", "a", "b", "c"}));
  ASSERT_TRUE(SortRows(t, "tag").ok());  // stable: a before d
  EXPECT_EQ(Ids(t), (std::vector<Json>{"d", "a", "c", "b"}));
  EXPECT_EQ(SortRows(t, "nope").code(), StatusCode::kInvalidArgument);
}

TEST(TableTest, DropsEmptyColumnsAndWritesCsv) {
  Table t{{"a", "empty", "b"}, {{1, nullptr, "x,y"}, {2.5, nullptr, "say \"hi\""}}};
  EXPECT_EQ(DropEmptyColumns(t), (std::vector<std::string>{"empty"}));
  EXPECT_EQ(t.columns, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(ToCsv(t), "a,b\n1,\"x,y\"\n2.5,\"say \"\"hi\"\"\"\n");
  Table none{{"a"}, {}};
  EXPECT_TRUE(DropEmptyColumns(none).empty());
  EXPECT_EQ(ToCsv(Table{{"a", "b"}, {{nullptr, 3}}}), "a,b\n,3\n");
}

TEST(TableTest, FormatsAlignedColumnsAndCutsToWidth) {
  Table t{{"name", "n"}, {{"alpha", 5}, {"b", 12.25}}};
  EXPECT_EQ(FormatTable(t),
            "+-------+-------+\n"
            "| name  |     n |\n"
            "|-------+-------|\n"
            "| alpha |     5 |\n"
            "| b     | 12.25 |\n"
            "+-------+-------+\n");
  std::vector<std::string> cut;
  EXPECT_EQ(FormatTable(t, 12, &cut),
            "+-------+\n"
            "| name  |\n"
            "|-------|\n"
            "| alpha |\n"
            "| b     |\n"
            "+-------+\n");
  EXPECT_EQ(cut, (std::vector<std::string>{"n"}));
}

}  // namespace
}  // namespace ray::tune
