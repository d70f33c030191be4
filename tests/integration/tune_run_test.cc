// `tune run` end to end: trials as actors on a real local cluster, results and
// checkpoints on disk, schedulers and searchers, failures, resume and bad input.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "tests/integration/ray_harness.h"

namespace ray::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kExamplesDir = RAY_EXAMPLES_DIR;
const std::string kExamples = kExamplesDir + "/tune_trainables.so";

int CountEventFiles(const std::string& dir) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    n += e.path().filename().string().rfind("events.out.tfevents.", 0) == 0;
  }
  return n;
}

class TuneRunTest : public ::testing::Test {
 protected:
  // `ray tune run PLUGIN args...` on a 2-CPU local cluster, results under results/.
  RunResult Tune(const std::string& plugin, std::vector<std::string> args, int timeout_s = 90) {
    std::vector<std::string> all = {"tune", "run", plugin, "--local-dir", Results(),
                                    "--num-cpus", "2", "--temp-dir", dir_.path()};
    all.insert(all.end(), args.begin(), args.end());
    return RunRay(all, dir_.path(), timeout_s);
  }
  std::string Results() const { return dir_.path() + "/results"; }
  json State(const std::string& name) const {
    return json::parse(ReadText(Results() + "/" + name + "/experiment_state.json"));
  }
  static std::vector<json> ResultLines(const std::string& trial_dir) {
    std::vector<json> out;
    std::istringstream in(ReadText(trial_dir + "/result.json"));
    for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
    return out;
  }

  TempDir dir_;
};

TEST_F(TuneRunTest, GridSearchRunsEveryTrialAndWritesTuneLayout) {
  auto r = Tune(kExamples, {"--run", "quadratic", "--name", "grid", "--config",
                            R"({"x": {"grid_search": [1, 3]}, "y": {"uniform": [-2, 0]}})",
                            "--num-samples", "2", "--stop", R"({"training_iteration": 3})",
                            "--metric", "loss", "--mode", "min"});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_NE(r.out.find("== Status =="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Using FIFO scheduling algorithm."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Best trial"), std::string::npos) << r.out;

  json state = State("grid");
  ASSERT_EQ(state["trials"].size(), 4u);
  std::multiset<double> xs;
  std::set<std::string> ids;
  for (const auto& t : state["trials"]) {
    EXPECT_EQ(t["status"], "TERMINATED");
    xs.insert(t["config"]["x"].get<double>());
    ids.insert(t["trial_id"].get<std::string>());
    std::string dir = t["logdir"];
    EXPECT_EQ(json::parse(ReadText(dir + "/params.json")), t["config"]);
    auto results = ResultLines(dir);
    ASSERT_EQ(results.size(), 3u) << dir;
    for (size_t i = 0; i < results.size(); ++i) {
      const json& res = results[i];
      EXPECT_EQ(res["training_iteration"], i + 1);
      EXPECT_EQ(res["timesteps_total"], 100 * (i + 1));
      EXPECT_EQ(res["trial_id"], t["trial_id"]);
      EXPECT_EQ(res["config"], t["config"]);
      for (const char* key : {"time_this_iter_s", "time_total_s", "experiment_id", "date",
                              "timestamp", "hostname", "node_ip", "pid", "done", "loss"}) {
        EXPECT_TRUE(res.contains(key)) << key;
      }
      EXPECT_FALSE(res["node_ip"].get<std::string>().empty());
    }
    std::string csv = ReadText(dir + "/progress.csv");
    EXPECT_EQ(CountLines(csv, ","), 4) << csv;  // header and three rows
  }
  EXPECT_EQ(xs, (std::multiset<double>{1, 1, 3, 3}));
  EXPECT_EQ(ids.size(), 4u);
}

TEST_F(TuneRunTest, FunctionTrainableReportsUntilItReturns) {
  auto r = Tune(kExamples, {"--run", "train_func", "--name", "func", "--config",
                            R"({"lr": {"grid_search": [0.1, 0.5]}, "iterations": 4})"});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  json state = State("func");
  for (const auto& t : state["trials"]) {
    auto results = ResultLines(t["logdir"]);
    ASSERT_EQ(results.size(), 5u);  // four reports, then the last one again, done
    EXPECT_FALSE(results[3]["done"].get<bool>());
    EXPECT_TRUE(results[4]["done"].get<bool>());
    EXPECT_EQ(results[4]["training_iteration"], 4) << "the repeat is not counted";
    EXPECT_EQ(results[4]["timesteps_total"], 40);
    EXPECT_EQ(results[4]["mean_accuracy"], results[3]["mean_accuracy"]);
    EXPECT_GT(results[3]["mean_accuracy"].get<double>(), results[0]["mean_accuracy"].get<double>());
  }
}

TEST_F(TuneRunTest, SampleFromDerivesValuesInThePlugin) {
  auto r = Tune(kExamples, {"--run", "quadratic", "--name", "derived", "--config",
                            R"({"x": {"grid_search": [2, 4]}, "y": {"sample_from": "half_x"}})",
                            "--stop", R"({"training_iteration": 1})"});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  json state = State("derived");
  for (const auto& t : state["trials"]) {
    EXPECT_DOUBLE_EQ(t["config"]["y"].get<double>(), t["config"]["x"].get<double>() / 2);
  }
}

TEST_F(TuneRunTest, CheckpointsAreKeptAndACrashedTrialRecovers) {
  std::string marker = dir_.path() + "/crashed";
  json config = {{"crash_at", 4}, {"marker", marker}};
  auto r = Tune(IT_TUNE_PLUGIN, {"--run", "counter", "--name", "ckpt", "--config", config.dump(),
                                 "--stop", R"({"training_iteration": 6})", "--checkpoint-freq",
                                 "2", "--keep-checkpoints-num", "2", "--max-failures", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_TRUE(fs::exists(marker));
  EXPECT_NE(r.out.find("restarting from"), std::string::npos) << r.out;
  json trial = State("ckpt")["trials"][0];
  EXPECT_EQ(trial["status"], "TERMINATED");
  EXPECT_EQ(trial["num_failures"], 1);
  std::string dir = trial["logdir"];
  // Iterations 1-3, then the crash at 4; restored from checkpoint_2: 3-6 again.
  auto results = ResultLines(dir);
  ASSERT_EQ(results.size(), 7u);
  EXPECT_EQ(results[3]["training_iteration"], 3);
  EXPECT_EQ(results[3]["count"], 3);
  EXPECT_EQ(results.back()["count"], 6);
  EXPECT_FALSE(fs::exists(dir + "/checkpoint_2"));  // only the 2 newest are kept
  EXPECT_TRUE(fs::exists(dir + "/checkpoint_4/count"));
  EXPECT_EQ(ReadText(dir + "/checkpoint_6/count"), "6");
}

TEST_F(TuneRunTest, AFailingTrialErrorsAndTheRunFails) {
  auto r = Tune(IT_TUNE_PLUGIN, {"--run", "failing", "--name", "fail", "--stop",
                                 R"({"training_iteration": 5})"});
  EXPECT_EQ(r.exit_code, 1) << r.all();
  EXPECT_NE(r.err.find("diverged at step 2"), std::string::npos) << r.err;
  json trial = State("fail")["trials"][0];
  EXPECT_EQ(trial["status"], "ERROR");
  EXPECT_NE(ReadText(trial["logdir"].get<std::string>() + "/error.txt").find("diverged"),
            std::string::npos);
}

TEST_F(TuneRunTest, ATrialReservesItsResourcesAsOnePlacementGroup) {
  // One CPU for the trial's actor, one extra for the actor its trainable starts: the
  // trial's group holds both of the cluster's CPUs, so the child runs only because the
  // group captures it.
  auto r = Tune(IT_TUNE_PLUGIN, {"--run", "spawner", "--name", "pg", "--config",
                                 R"({"children": 1})", "--resources-per-trial",
                                 R"({"cpu": 1, "extra_cpu": 1})", "--stop",
                                 R"({"training_iteration": 2})"});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  json trial = State("pg")["trials"][0];
  EXPECT_EQ(trial["status"], "TERMINATED") << r.all();
  auto results = ResultLines(trial["logdir"]);
  ASSERT_FALSE(results.empty()) << r.all();
  for (const auto& result : results) {
    EXPECT_EQ(result["children_answered"], 1) << result.dump();
    EXPECT_EQ(result["groups_created"], 1) << result.dump();
    EXPECT_EQ(result["bundles"], json::parse(R"([{"CPU": 1.0}, {"CPU": 1.0}])")) << result.dump();
  }
  // Without extra resources a trial reserves nothing beyond its actor: what its
  // trainable starts runs wherever there is room.
  r = Tune(IT_TUNE_PLUGIN, {"--run", "spawner", "--name", "nopg", "--config", R"({"children": 1})",
                            "--resources-per-trial", R"({"cpu": 1})", "--stop",
                            R"({"training_iteration": 1})"});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  auto plain = ResultLines(State("nopg")["trials"][0]["logdir"]);
  ASSERT_FALSE(plain.empty()) << r.all();
  EXPECT_EQ(plain[0]["children_answered"], 1) << plain[0].dump();
  EXPECT_EQ(plain[0]["groups_created"], 0) << plain[0].dump();
}

TEST_F(TuneRunTest, AshaStopsPoorTrialsEarly) {
  auto r = Tune(kExamples, {"--run", "quadratic", "--name", "asha", "--config",
                            R"({"x": {"grid_search": [-6, -3, 0, 1, 2, 3, 4, 7, 9]}})",
                            "--scheduler", "AsyncHyperBand", "--scheduler-config",
                            R"({"max_t": 9, "grace_period": 1, "reduction_factor": 3})",
                            "--metric", "loss", "--mode", "min"});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_NE(r.out.find("AsyncHyperBand"), std::string::npos) << r.out;
  int full = 0, total_iterations = 0;
  json state = State("asha");
  for (const auto& t : state["trials"]) {
    int it = t["last_result"]["training_iteration"];
    total_iterations += it;
    full += it == 9;
    if (t["config"]["x"] == 3) {
      EXPECT_EQ(it, 9) << "the best trial runs to max_t";
    }
  }
  EXPECT_GE(full, 1);
  EXPECT_LT(total_iterations, 9 * 9);
}

TEST_F(TuneRunTest, PbtExploresConfigsOfRunningTrials) {
  auto r = Tune(kExamples, {"--run", "quadratic", "--name", "pbt", "--config",
                            R"({"x": {"uniform": [-5, 10]}, "y": 0})", "--num-samples", "4",
                            "--scheduler", "PBT", "--scheduler-config",
                            R"({"time_attr": "training_iteration", "perturbation_interval": 2,
                                "hyperparam_mutations": {"x": {"uniform": [-5, 10]}}})",
                            "--metric", "loss", "--mode", "min", "--stop",
                            R"({"training_iteration": 8})", "--seed", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  int changed = 0;
  json state = State("pbt");
  for (const auto& t : state["trials"]) {
    auto results = ResultLines(t["logdir"]);
    ASSERT_FALSE(results.empty());
    changed += results.front()["config"] != results.back()["config"];
  }
  EXPECT_GE(changed, 1) << "PBT should have exploited and perturbed at least one trial";
}

TEST_F(TuneRunTest, TpeSuggestsTheRequestedNumberOfTrials) {
  auto r = Tune(kExamples, {"--run", "quadratic", "--name", "tpe", "--config",
                            R"({"x": {"uniform": [-5, 10]}, "y": {"uniform": [-5, 5]}})",
                            "--search-alg", "tpe", "--num-samples", "12", "--metric", "loss",
                            "--mode", "min", "--stop", R"({"training_iteration": 1})"});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(State("tpe")["trials"].size(), 12u);
}

TEST_F(TuneRunTest, AnInterruptedExperimentResumesWithoutRerunningFinishedTrials) {
  std::vector<std::string> args = {"tune", "run", IT_TUNE_PLUGIN, "--local-dir", Results(),
                                   "--num-cpus", "1", "--temp-dir", dir_.path(), "--run",
                                   "counter", "--name", "resume", "--config",
                                   R"({"sleep_ms": 100, "rate": {"grid_search": [1, 2, 3]}})",
                                   "--stop", R"({"training_iteration": 5})",
                                   "--checkpoint-freq", "1"};
  int pid = SpawnRay(args, dir_.path());
  // Kill the driver once the first trial has finished and been recorded.
  std::string state_file = Results() + "/resume/experiment_state.json";
  bool first_done = false;
  for (int i = 0; i < 300 && !first_done; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    json state = json::parse(ReadText(state_file), nullptr, false);
    if (state.is_object()) {
      for (const auto& t : state["trials"]) first_done |= t["status"] == "TERMINATED";
    }
  }
  ASSERT_TRUE(first_done);
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  json before = State("resume");
  std::string finished_dir;
  for (const auto& t : before["trials"]) {
    if (t["status"] == "TERMINATED") finished_dir = t["logdir"];
  }
  size_t finished_lines = ResultLines(finished_dir).size();

  auto again = Tune(IT_TUNE_PLUGIN, {"--name", "resume", "--resume"});
  ASSERT_EQ(again.exit_code, 0) << again.all();
  json after = State("resume");
  ASSERT_EQ(after["trials"].size(), 3u);
  for (const auto& t : after["trials"]) {
    EXPECT_EQ(t["status"], "TERMINATED");
    EXPECT_EQ(t["last_result"]["count"], 5);
  }
  EXPECT_EQ(ResultLines(finished_dir).size(), finished_lines);
}

TEST_F(TuneRunTest, BadInputIsRefusedWithAClearMessage) {
  auto unknown = Tune(kExamples, {"--run", "nope"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("no trainable named 'nope'"), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("quadratic"), std::string::npos) << unknown.err;

  auto ambiguous = Tune(kExamples, {});
  EXPECT_EQ(ambiguous.exit_code, 1);
  EXPECT_NE(ambiguous.err.find("--run"), std::string::npos) << ambiguous.err;

  auto not_tune = Tune(std::string(RAY_EXAMPLES_DIR) + "/tutorial.so", {});
  EXPECT_EQ(not_tune.exit_code, 1);
  EXPECT_NE(not_tune.err.find("registers no trainable"), std::string::npos) << not_tune.err;

  auto bad_json = Tune(kExamples, {"--run", "quadratic", "--config", "{x:"});
  EXPECT_NE(bad_json.exit_code, 0);
  EXPECT_NE(bad_json.all().find("--config"), std::string::npos) << bad_json.all();

  auto bad_space = Tune(kExamples, {"--run", "quadratic", "--config", R"({"x": {"uniform": [1]}})"});
  EXPECT_EQ(bad_space.exit_code, 1);
  EXPECT_NE(bad_space.err.find("x"), std::string::npos) << bad_space.err;

  auto bad_scheduler = Tune(kExamples, {"--run", "quadratic", "--scheduler", "Nope"});
  EXPECT_EQ(bad_scheduler.exit_code, 1);
  EXPECT_NE(bad_scheduler.err.find("Nope"), std::string::npos) << bad_scheduler.err;

  auto too_big = Tune(kExamples, {"--run", "quadratic", "--name", "big", "--resources-per-trial",
                                  R"({"cpu": 64})", "--stop", R"({"training_iteration": 1})"});
  EXPECT_EQ(too_big.exit_code, 1);
  EXPECT_NE(too_big.err.find("cluster has only"), std::string::npos) << too_big.err;

  auto restore = Tune(kExamples, {"--run", "quadratic", "--name", "restore", "--restore",
                                  "/nonexistent/checkpoint_1"});
  EXPECT_EQ(restore.exit_code, 1);
  EXPECT_NE(restore.err.find("not a checkpoint directory"), std::string::npos) << restore.err;

  auto nothing = Tune(kExamples, {"--run", "quadratic", "--name", "never", "--resume"});
  EXPECT_EQ(nothing.exit_code, 1);
  EXPECT_NE(nothing.err.find("no experiment to resume"), std::string::npos) << nothing.err;
}

TEST_F(TuneRunTest, ANewRunAddsItsTrialsBesideTheEarlierOnes) {
  for (int run = 0; run < 2; ++run) {
    ASSERT_EQ(Tune(kExamples, {"--run", "quadratic", "--name", "again", "--stop",
                               R"({"training_iteration": 2})"}).exit_code, 0);
  }
  json state = State("again");
  ASSERT_EQ(state["trials"].size(), 2u);
  EXPECT_EQ(state["first_trial"], 1);
  EXPECT_NE(state["trials"][0]["logdir"], state["trials"][1]["logdir"]);
  for (const auto& t : state["trials"]) {
    EXPECT_EQ(t["status"], "TERMINATED");
    EXPECT_EQ(ResultLines(t["logdir"]).size(), 2u);
  }
}

TEST_F(TuneRunTest, ExperimentFileRunsEachExperiment) {
  std::string file = dir_.path() + "/exp.yaml";
  std::ofstream(file) << "first:\n  run: quadratic\n  stop: {training_iteration: 2}\n"
                         "  config: {x: {grid_search: [1, 2]}}\n"
                         "second:\n  run: train_func\n  config: {iterations: 2}\n"
                         "  resources_per_trial: {cpu: 1, gpu: 0}\n";
  auto r = Tune(kExamples, {"-f", file});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_EQ(State("first")["trials"].size(), 2u);
  EXPECT_EQ(State("second")["trials"].size(), 1u);
  // By default every trial also writes a TensorBoard event file.
  for (const auto& t : State("first")["trials"]) {
    EXPECT_EQ(CountEventFiles(t["logdir"]), 1) << t["logdir"];
  }

  // `loggers` chooses: here result.json and a logger plugin, no CSV or TensorBoard.
  std::ofstream(dir_.path() + "/loggers.yaml")
      << "chosen:\n  run: quadratic\n  stop: {training_iteration: 2}\n"
         "  loggers: [json, " << kExamplesDir << "/tsv_logger.so]\n";
  auto chosen = Tune(kExamples, {"-f", dir_.path() + "/loggers.yaml"});
  ASSERT_EQ(chosen.exit_code, 0) << chosen.all();
  std::string trial = State("chosen")["trials"][0]["logdir"];
  EXPECT_EQ(CountEventFiles(trial), 0);
  EXPECT_FALSE(fs::exists(trial + "/progress.csv"));
  EXPECT_EQ(CountLines(ReadText(trial + "/progress.tsv"), "\t"), 3);  // header and two rows
  std::ofstream(dir_.path() + "/bad_loggers.yaml")
      << "bad:\n  run: quadratic\n  loggers: [csv, tensorboard]\n";
  auto no_json = Tune(kExamples, {"-f", dir_.path() + "/bad_loggers.yaml"});
  EXPECT_EQ(no_json.exit_code, 1);
  EXPECT_NE(no_json.err.find("loggers: json cannot be left out"), std::string::npos) << no_json.err;

  std::ofstream(dir_.path() + "/bad.yaml") << "bad:\n  run: quadratic\n  stopp: {}\n";
  auto bad = Tune(kExamples, {"-f", dir_.path() + "/bad.yaml"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("bad.stopp: unknown key"), std::string::npos) << bad.err;
}


// Tune's Client API: a running experiment lists its trials, takes new ones and stops
// them, for callers with the cluster token only.
TEST_F(TuneRunTest, TheClientApiListsAddsAndStopsTrials) {
  int pid = SpawnRay({"tune", "run", IT_TUNE_PLUGIN, "--local-dir", Results(), "--num-cpus", "2",
                      "--temp-dir", dir_.path(), "--run", "counter", "--name", "served",
                      "--config", R"({"sleep_ms": 50})", "--stop",
                      R"({"training_iteration": 100000})", "--server", "--server-port", "0"},
                     dir_.path());
  std::string url;
  for (int i = 0; i < 300 && url.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::string out = SpawnedOutput(dir_.path(), ".out");
    auto at = out.find("Client API at http://127.0.0.1:");
    if (at != std::string::npos) url = out.substr(at + 14, out.find("/trials", at) - at - 14);
  }
  ASSERT_FALSE(url.empty()) << SpawnedOutput(dir_.path(), ".out") << SpawnedOutput(dir_.path(), ".err");
  std::string token = ReadText(dir_.path() + "/session_latest/token");
  ASSERT_FALSE(token.empty());
  httplib::Client client(url);
  client.set_read_timeout(20, 0);
  httplib::Headers auth = {{"Authorization", "Bearer " + token}};

  auto anonymous = client.Get("/trials");
  ASSERT_TRUE(anonymous);
  EXPECT_EQ(anonymous->status, 401);
  auto wrong = client.Get("/trials", {{"Authorization", "Bearer " + std::string(token.size(), 'x')}});
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);

  auto trials = [&] {
    auto r = client.Get("/trials", auth);
    return r && r->status == 200 ? json::parse(r->body)["trials"] : json::array();
  };
  std::string first;
  for (int i = 0; i < 200 && first.empty(); ++i) {
    for (const auto& t : trials()) {
      if (t["status"] == "RUNNING") first = t["id"];
    }
    if (first.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(first.empty()) << trials().dump();

  auto added = client.Post("/trials", auth,
                           R"({"spec": {"config": {"sleep_ms": 50, "rate": {"grid_search": [2, 3]}}}})",
                           "application/json");
  ASSERT_TRUE(added);
  ASSERT_EQ(added->status, 200) << added->body;
  json ids = json::parse(added->body)["trial_ids"];
  ASSERT_EQ(ids.size(), 2u);
  auto one = client.Get("/trials/" + ids[1].get<std::string>(), auth);
  ASSERT_TRUE(one);
  ASSERT_EQ(one->status, 200);
  EXPECT_EQ(json::parse(one->body)["trial"]["config"]["rate"], 3);

  auto bad = client.Post("/trials", auth, R"({"spec": {"stop": {}}})", "application/json");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(bad->body.find("spec.stop"), std::string::npos) << bad->body;
  auto unknown = client.Get("/trials/nope", auth);
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);

  // Stopping every trial ends the experiment (its stop criterion is far away).
  for (const std::string& id : {first, ids[0].get<std::string>(), ids[1].get<std::string>()}) {
    auto stopped = client.Put("/trials/" + id, auth, "", "application/json");
    ASSERT_TRUE(stopped);
    EXPECT_EQ(stopped->status, 200) << stopped->body;
  }
  int status = -1;
  for (int i = 0; i < 300 && ::waitpid(pid, &status, WNOHANG) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (status == -1) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    FAIL() << "tune run did not end after its trials were stopped: " << trials().dump();
  }
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << SpawnedOutput(dir_.path(), ".err");
  json state = State("served");
  ASSERT_EQ(state["trials"].size(), 3u);
  for (const auto& t : state["trials"]) EXPECT_EQ(t["status"], "TERMINATED") << t.dump();
}

}  // namespace
}  // namespace ray::testing
