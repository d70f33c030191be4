// `cmake --install` of this tree, then the prefix moved elsewhere: find_package(Ray)
// against the moved prefix builds an out-of-tree plugin, the moved `ray` runs it,
// `rllib` / `tune` still work and the bundled plugins are found beside the binary; an
// env plugin built out of tree against the installed env SDK trains with `rllib`; a
// program of the user's own built against it runs with ray::Init.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/integration/ray_harness.h"

namespace {

namespace fs = std::filesystem;
using ray::testing::AwaitNoProcessesMentioning;
using ray::testing::ReadText;
using ray::testing::RunCommand;
using ray::testing::RunResult;
using ray::testing::TempDir;

TEST(InstallTest, MovedPrefixBuildsAndRunsPlugins) {
  TempDir tmp;
  const std::string a = tmp.path() + "/a", b = tmp.path() + "/b";
  const std::string scratch = tmp.path() + "/scratch", cluster = tmp.path() + "/cluster";
  fs::create_directories(scratch);
  fs::create_directories(cluster);

  RunResult install =
      RunCommand({"cmake", "--install", RAY_BUILD_DIR, "--prefix", a}, scratch, 120);
  ASSERT_EQ(install.exit_code, 0) << install.all();
  fs::rename(a, b);
  ASSERT_FALSE(fs::exists(a));

  for (const char* f : {"bin/ray", "bin/rllib", "bin/tune", "lib/ray/algorithms/ppo.so",
                        "lib/libray_client.so",
                        "lib/ray/microbenchmark.so", "include/ray/api.h",
                        "include/ray/rllib/env_plugin.h", "include/ray/rllib/env_abi.h",
                        "include/ray/registry.h", "include/ray/wire.h"}) {
    EXPECT_TRUE(fs::exists(fs::path(b) / f)) << f;
  }
  // Nothing installed remembers where it was installed.
  for (const auto& e : fs::recursive_directory_iterator(b)) {
    if (!e.is_regular_file() || e.is_symlink()) continue;
    EXPECT_EQ(ReadText(e.path()).find(a), std::string::npos)
        << e.path() << " mentions the original prefix " << a;
  }

  // An out-of-tree plugin against the moved prefix.
  const fs::path src = tmp.path() + "/proj";
  fs::create_directories(src);
  std::ofstream(src / "CMakeLists.txt")
      << "cmake_minimum_required(VERSION 3.20)\n"
         "project(square CXX)\n"
         "find_package(Ray REQUIRED)\n"
         "if(NOT EXISTS \"${RAY_EXECUTABLE}\")\n"
         "  message(FATAL_ERROR \"no ray at ${RAY_EXECUTABLE}\")\n"
         "endif()\n"
         "message(STATUS \"ray: ${RAY_EXECUTABLE}\")\n"
         "ray_add_plugin(square square.cc)\n"
         "ray_add_program(own_main own_main.cc)\n";
  std::filesystem::copy_file(SQUARE_JOB_SOURCE, src / "square.cc");
  std::filesystem::copy_file(OWN_MAIN_SOURCE, src / "own_main.cc");
  const std::string build = (src / "build").string();
  RunResult configure = RunCommand(
      {"cmake", "-S", src.string(), "-B", build, "-DCMAKE_PREFIX_PATH=" + b}, scratch, 120);
  ASSERT_EQ(configure.exit_code, 0) << configure.all();
  EXPECT_NE(configure.out.find("ray: " + b + "/bin/ray"), std::string::npos) << configure.out;
  RunResult make = RunCommand({"cmake", "--build", build}, scratch, 180);
  ASSERT_EQ(make.exit_code, 0) << make.all();

  RunResult run = RunCommand({b + "/bin/ray", "run", "--temp-dir", cluster, build + "/square.so"},
                             scratch, 120);
  EXPECT_EQ(run.exit_code, 0) << run.all();
  EXPECT_NE(run.out.find("square: 49"), std::string::npos) << run.all();
  // A program of the user's own (ray::Init), which starts a cluster of the moved `ray`.
  RunResult own = RunCommand(
      {"env", "RAY_TMPDIR=" + cluster, "RAY_ADDRESS=", build + "/own_main", "run"}, scratch, 120);
  EXPECT_EQ(own.exit_code, 0) << own.all();
  EXPECT_NE(own.out.find("sum of squares 285, counter 15"), std::string::npos) << own.all();

  // An env plugin out of tree, against the moved prefix's env SDK, trained on by the
  // moved `rllib` (which finds its bundled PPO plugin).
  const fs::path envs = tmp.path() + "/envs";
  fs::create_directories(envs);
  std::ofstream(envs / "CMakeLists.txt")
      << "cmake_minimum_required(VERSION 3.20)\n"
         "project(envs CXX)\n"
         "find_package(Ray REQUIRED)\n"
         "ray_add_plugin(reach_target_env reach_target_env.cc)\n";
  std::filesystem::copy_file(REACH_TARGET_ENV_SOURCE, envs / "reach_target_env.cc");
  const std::string envs_build = (envs / "build").string();
  RunResult envs_configure = RunCommand(
      {"cmake", "-S", envs.string(), "-B", envs_build, "-DCMAKE_PREFIX_PATH=" + b}, scratch, 120);
  ASSERT_EQ(envs_configure.exit_code, 0) << envs_configure.all();
  RunResult envs_make = RunCommand({"cmake", "--build", envs_build}, scratch, 180);
  ASSERT_EQ(envs_make.exit_code, 0) << envs_make.all();
  RunResult train = RunCommand(
      {b + "/bin/rllib", "train", "--run", "PPO", "--env", "ReachTarget-v0", "--env-plugin",
       envs_build + "/reach_target_env.so", "--stop", "{\"training_iteration\": 1}", "--config",
       "{\"num_workers\": 1, \"train_batch_size\": 200, \"sgd_minibatch_size\": 50, "
       "\"num_sgd_iter\": 1, \"model\": {\"fcnet_hiddens\": [8]}}",
       "--local-dir", scratch + "/results", "--temp-dir", cluster},
      scratch, 180);
  EXPECT_EQ(train.exit_code, 0) << train.all();
  EXPECT_TRUE(fs::exists(scratch + "/results/default")) << train.all();

  // `rllib` and `tune` are links to the moved `ray`.
  for (const char* name : {"rllib", "tune"}) {
    RunResult help = RunCommand({b + "/bin/" + name, "--help"}, scratch, 30);
    EXPECT_EQ(help.exit_code, 0) << name << ": " << help.all();
    EXPECT_NE(help.out.find(std::string("Usage: ray ") + name), std::string::npos) << help.out;
  }

  // A bundled plugin (lib/ray/microbenchmark.so) found by the moved binary.
  RunResult bench =
      RunCommand({b + "/bin/ray", "microbenchmark", "--quick", "--duration", "0.05", "--repeat", "1",
                  "--filter", "single_client_tasks_sync", "--json", "--temp-dir", cluster},
                 scratch, 120);
  EXPECT_EQ(bench.exit_code, 0) << bench.all();
  EXPECT_NE(bench.out.find("single_client_tasks_sync"), std::string::npos) << bench.all();

  EXPECT_TRUE(AwaitNoProcessesMentioning(cluster).empty()) << "processes left behind";
}

}  // namespace
