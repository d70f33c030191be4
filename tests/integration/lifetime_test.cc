// Actor lifetimes across jobs and nodes: detached actors outlive their job and are
// found by later jobs of their namespace; named actors of different namespaces do not
// clash; ray::KillActor works from a task on another node, with and without restart;
// a job's runtime_env (env_vars, working_dir, plugins) reaches its tasks on every node.

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/integration/ray_harness.h"

namespace ray::testing {
namespace {

bool Alive(const std::string& pid) { return !pid.empty() && ::kill(std::stoi(pid), 0) == 0; }

// Whether the process is gone within 10 s (its raylet reaps it after the kill).
bool Ends(const std::string& pid) {
  for (int i = 0; i < 200 && Alive(pid); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return !Alive(pid);
}

// One node, several jobs submitted to it one after the other.
class LifetimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    temp_ = dir_.path() + "/node";
    auto head = RunRay({"start", "--head", "--port", "0", "--num-cpus", "4", "--temp-dir", temp_},
                       dir_.path());
    ASSERT_EQ(head.exit_code, 0) << head.all();
  }
  void TearDown() override {
    RunRay({"stop", "--temp-dir", temp_}, dir_.path());
    EXPECT_TRUE(AwaitNoProcessesMentioning(dir_.path()).empty());
  }
  // `ray submit [--namespace ns] lifetime_plugin args...`
  RunResult Job(const std::vector<std::string>& args, const std::string& ns = "") {
    std::vector<std::string> cmd{"submit", "--temp-dir", temp_};
    if (!ns.empty()) cmd.insert(cmd.end(), {"--namespace", ns});
    cmd.push_back(IT_LIFETIME_PLUGIN);
    cmd.insert(cmd.end(), args.begin(), args.end());
    return RunRay(cmd, dir_.path(), 120);
  }
  nlohmann::json Actors() {
    auto r = RunRay({"list", "actors", "--json", "--temp-dir", temp_}, dir_.path());
    EXPECT_EQ(r.exit_code, 0) << r.all();
    return nlohmann::json::parse(r.out);
  }

  TempDir dir_;
  std::string temp_;
};

TEST_F(LifetimeTest, ADetachedActorOutlivesItsJobUntilKilled) {
  auto create = Job({"create_detached", "keeper", "5"}, "team");
  ASSERT_EQ(create.exit_code, 0) << create.all();
  std::string pid = KeyValue(create.out, "pid");
  ASSERT_TRUE(Alive(pid)) << create.all();
  // The first job is over; its detached actor is not, and keeps its state.
  auto use = Job({"use", "keeper"}, "team");
  ASSERT_EQ(use.exit_code, 0) << use.all();
  EXPECT_EQ(KeyValue(use.out, "found"), "1") << use.all();
  EXPECT_EQ(KeyValue(use.out, "value"), "6");
  EXPECT_EQ(KeyValue(use.out, "pid"), pid);
  auto again = Job({"use", "keeper"}, "team");
  EXPECT_EQ(KeyValue(again.out, "value"), "7") << again.all();
  // Killed by a later job: gone for good, its name free.
  auto kill = Job({"kill", "keeper"}, "team");
  ASSERT_EQ(kill.exit_code, 0) << kill.all();
  EXPECT_EQ(KeyValue(kill.out, "calls_fail"), "1") << kill.all();
  EXPECT_EQ(KeyValue(kill.out, "gone"), "1");
  EXPECT_TRUE(Ends(pid));
  auto after = Job({"lookup", "keeper"}, "team");
  EXPECT_EQ(KeyValue(after.out, "found"), "0") << after.all();
}

TEST_F(LifetimeTest, ANonDetachedActorEndsWithItsJob) {
  auto create = Job({"create", "brief", "5"}, "team");
  ASSERT_EQ(create.exit_code, 0) << create.all();
  auto use = Job({"lookup", "brief"}, "team");
  EXPECT_EQ(KeyValue(use.out, "found"), "0") << use.all();
}

TEST_F(LifetimeTest, NamedActorsOfTwoNamespacesDoNotClash) {
  auto a = Job({"create_detached", "svc", "100"}, "alpha");
  ASSERT_EQ(a.exit_code, 0) << a.all();
  auto b = Job({"create_detached", "svc", "200"}, "beta");
  ASSERT_EQ(b.exit_code, 0) << b.all();  // the same name, another namespace
  EXPECT_EQ(KeyValue(Job({"use", "svc"}, "alpha").out, "value"), "101");
  EXPECT_EQ(KeyValue(Job({"use", "svc"}, "beta").out, "value"), "201");
  // An explicit namespace from a job of another one (here an anonymous one).
  auto explicit_ns = Job({"use", "svc", "beta"});
  EXPECT_EQ(KeyValue(explicit_ns.out, "value"), "202") << explicit_ns.all();
  // A job's own anonymous namespace does not see either.
  EXPECT_EQ(KeyValue(Job({"lookup", "svc"}).out, "found"), "0");
  // Within one namespace a live name is taken.
  auto taken = Job({"create_detached", "svc", "300"}, "alpha");
  EXPECT_NE(taken.exit_code, 0) << taken.all();
  EXPECT_NE(taken.all().find("taken in namespace 'alpha'"), std::string::npos) << taken.all();

  std::vector<std::string> namespaces;
  for (const auto& row : Actors()) {
    if (row["name"] == "svc" && row["state"] == "ALIVE") namespaces.push_back(row["ray_namespace"]);
  }
  EXPECT_EQ(namespaces, (std::vector<std::string>{"alpha", "beta"}));
  EXPECT_EQ(KeyValue(Job({"kill", "svc"}, "alpha").out, "gone"), "1");
  EXPECT_EQ(KeyValue(Job({"kill", "svc"}, "beta").out, "gone"), "1");
}

TEST_F(LifetimeTest, AnonymousNamespacesKeepTwoJobsNamesApart) {
  // Two jobs without --namespace, each with a detached "svc": no clash.
  auto first = Job({"create_detached", "svc", "1"});
  ASSERT_EQ(first.exit_code, 0) << first.all();
  auto second = Job({"create_detached", "svc", "2"});
  ASSERT_EQ(second.exit_code, 0) << second.all();
  int anonymous = 0;
  for (const auto& row : Actors()) {
    if (row["name"] == "svc") {
      ++anonymous;
      EXPECT_EQ(row["ray_namespace"].get<std::string>().size(), 36u) << row.dump();  // a UUID
    }
  }
  EXPECT_EQ(anonymous, 2);
}

// Two nodes: the head (resource "Head") and a worker (resource "Special").
class TwoNodeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    head_ = dir_.path() + "/head";
    worker_ = dir_.path() + "/worker";
    auto head = RunRay({"start", "--head", "--port", "0", "--num-cpus", "2", "--resources",
                        R"({"Head": 1})", "--temp-dir", head_},
                       dir_.path());
    ASSERT_EQ(head.exit_code, 0) << head.all();
    auto s = RunRay({"status", "--json", "--temp-dir", head_}, dir_.path());
    ASSERT_EQ(s.exit_code, 0) << s.all();
    address_ = nlohmann::json::parse(s.out)["address"];
    std::string token = ReadText(head_ + "/session_latest/token");
    auto join = RunRay({"start", "--address", address_, "--token", token, "--num-cpus", "2",
                        "--resources", R"({"Special": 1})", "--temp-dir", worker_},
                       dir_.path());
    ASSERT_EQ(join.exit_code, 0) << join.all();
  }
  void TearDown() override {
    RunRay({"stop", "--temp-dir", worker_}, dir_.path());
    RunRay({"stop", "--temp-dir", head_}, dir_.path());
    EXPECT_TRUE(AwaitNoProcessesMentioning(dir_.path()).empty());
  }
  RunResult Submit(const std::vector<std::string>& args,
                   const std::vector<std::string>& flags = {}) {
    std::vector<std::string> cmd{"submit", "--address", address_, "--temp-dir", head_};
    cmd.insert(cmd.end(), flags.begin(), flags.end());
    cmd.push_back(IT_LIFETIME_PLUGIN);
    cmd.insert(cmd.end(), args.begin(), args.end());
    return RunRay(cmd, dir_.path(), 120);
  }

  TempDir dir_;
  std::string head_, worker_, address_;
};

TEST_F(TwoNodeTest, ATaskOnAnotherNodeKillsAnActorForGood) {
  auto r = Submit({"kill_from_task"});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_NE(KeyValue(r.out, "actor_node"), KeyValue(r.out, "killer_node")) << r.all();
  EXPECT_EQ(KeyValue(r.out, "killer_by_name"), KeyValue(r.out, "killer_node"));
  EXPECT_EQ(KeyValue(r.out, "handle_calls_fail"), "1") << r.all();
  EXPECT_EQ(KeyValue(r.out, "name_calls_fail"), "1") << r.all();
  EXPECT_EQ(KeyValue(r.out, "gone_by_name"), "1");
  EXPECT_TRUE(Ends(KeyValue(r.out, "pid1")));
  EXPECT_TRUE(Ends(KeyValue(r.out, "pid2")));
}

TEST_F(TwoNodeTest, AKillWithoutNoRestartRestartsTheActor) {
  auto r = Submit({"kill_restart_from_task"});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  EXPECT_NE(KeyValue(r.out, "actor_node"), KeyValue(r.out, "killer_node")) << r.all();
  EXPECT_EQ(KeyValue(r.out, "restarted"), "1") << r.all();
  EXPECT_EQ(KeyValue(r.out, "value_after"), "10");  // the constructor ran again
  EXPECT_EQ(KeyValue(r.out, "by_name_restarted"), "1");
}

TEST_F(TwoNodeTest, AJobsRuntimeEnvReachesItsTasksOnEveryNode) {
  std::filesystem::create_directories(dir_.path() + "/wd/sub");
  std::ofstream(dir_.path() + "/wd/data.txt") << "shipped";
  std::string env_file = dir_.path() + "/env.yaml";
  std::ofstream(env_file) << "env_vars:\n  RT_MODE: fast\nworking_dir: " << dir_.path()
                          << "/wd\nplugins:\n  - " << IT_RUNTIME_ENV_EXTRA_PLUGIN << "\n";
  auto r = Submit({"runtime_env"}, {"--runtime-env", env_file});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  std::string job_task = KeyValue(r.out, "job_task");
  EXPECT_NE(job_task.find("RT_MODE=fast|RT_TASK=|RT_EXTRA_PLUGIN=loaded|"), std::string::npos)
      << r.all();
  // Its own env_vars over the job's, in a worker of its own.
  std::string own = KeyValue(r.out, "own_task");
  EXPECT_NE(own.find("RT_MODE=slow|RT_TASK=mine|RT_EXTRA_PLUGIN=loaded|"), std::string::npos)
      << r.all();
  EXPECT_NE(job_task.substr(job_task.find("pid=")), own.substr(own.find("pid=")));
  // The working_dir, read as the cwd of a task on the other node.
  std::string data = KeyValue(r.out, "remote_data");
  EXPECT_EQ(data.substr(0, data.find('@')), "shipped") << r.all();
  EXPECT_NE(KeyValue(r.out, "unknown_key").find("key 'pip' is not supported"), std::string::npos)
      << r.all();
}

// A task's or actor's own working_dir and plugins are shipped by its submitter and
// set up wherever it runs; tasks without them are untouched.
TEST_F(TwoNodeTest, ATasksOwnWorkingDirAndPluginsReachItOnEveryNode) {
  std::filesystem::create_directories(dir_.path() + "/own");
  std::ofstream(dir_.path() + "/own/data.txt") << "own";
  auto r = Submit({"task_runtime_env", dir_.path() + "/own", IT_RUNTIME_ENV_EXTRA_PLUGIN});
  ASSERT_EQ(r.exit_code, 0) << r.all();
  auto data = [&](const std::string& key) {
    std::string v = KeyValue(r.out, key);
    return v.substr(0, v.find('@'));
  };
  EXPECT_EQ(data("own_dir_remote"), "own") << r.all();
  EXPECT_EQ(data("own_dir_here"), "own") << r.all();
  EXPECT_EQ(data("actor_dir"), "own") << r.all();
  EXPECT_EQ(data("no_dir"), "") << r.all();
  EXPECT_NE(KeyValue(r.out, "own_plugin").find("RT_EXTRA_PLUGIN=loaded|"), std::string::npos) << r.all();
  EXPECT_NE(KeyValue(r.out, "no_plugin").find("RT_EXTRA_PLUGIN=|"), std::string::npos) << r.all();
  std::string missing = KeyValue(r.out, "missing_dir");
  EXPECT_NE(missing.find("refused"), std::string::npos) << r.all();
  EXPECT_NE(missing.find("no-such-dir"), std::string::npos) << r.all();
}

TEST_F(TwoNodeTest, AnUnknownRuntimeEnvKeyIsRefusedBeforeTheJobRuns) {
  auto r = Submit({"runtime_env"}, {"--runtime-env-json", R"({"conda": "env"})"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("--runtime-env-json: runtime_env key 'conda' is not supported"),
            std::string::npos)
      << r.all();
  EXPECT_EQ(KeyValue(r.out, "job_task"), "");
}

}  // namespace
}  // namespace ray::testing
