// Plugins as the CLI loads them: files that are not plugins are refused with a
// message naming the file and the reason, and two job plugins share one running
// cluster (`ray start` / `ray submit` / `ray stop`).

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/integration/ray_harness.h"

namespace ray::testing {
namespace {

class BadPluginTest : public ::testing::Test {
 protected:
  // `ray run` of `plugin` fails, naming the file and `reason`, and leaves nothing behind.
  void ExpectRefused(const std::string& plugin, const std::string& reason) {
    RunResult r = RunRay({"run", "--num-cpus", "1", "--temp-dir", tmp_.path(), plugin}, tmp_.path());
    EXPECT_NE(r.exit_code, 0) << r.all();
    EXPECT_NE(r.exit_code, 124) << "timed out: " << r.all();
    EXPECT_NE(r.err.find(plugin), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(reason), std::string::npos) << r.err;
    EXPECT_EQ(AwaitNoProcessesMentioning(tmp_.path()), std::vector<int>{});
  }

  TempDir tmp_;
};

TEST_F(BadPluginTest, MissingFile) {
  ExpectRefused(tmp_.path() + "/no-such-plugin.so", "cannot be read");
}

TEST_F(BadPluginTest, TextFile) {
  std::string path = tmp_.path() + "/notes.so";
  std::ofstream(path) << "this is not a shared library\n";
  ExpectRefused(path, "not a loadable shared library");
}

TEST_F(BadPluginTest, SharedLibraryWithoutRayEntryPoints) {
  ExpectRefused(IT_NOT_A_PLUGIN, "not a ray plugin (missing symbol ray_plugin_abi_version");
}

TEST_F(BadPluginTest, WrongAbiVersion) {
  ExpectRefused(IT_ABI999_PLUGIN, "ABI version 999");
}

// Two different job plugins, one after the other, on the same running cluster.
TEST(ClusterTest, TwoPluginsShareARunningCluster) {
  TempDir tmp;
  std::string work = tmp.path() + "/work";
  std::filesystem::create_directories(work);
  RunResult start = RunRay({"start", "--head", "--port", "0", "--num-cpus", "2", "--temp-dir",
                            tmp.path()},
                           tmp.path(), 30);
  ASSERT_EQ(start.exit_code, 0) << start.all();

  RunResult status = RunRay({"status", "--json", "--temp-dir", tmp.path()}, tmp.path(), 30);
  ASSERT_EQ(status.exit_code, 0) << status.all();
  std::string address;
  try {
    auto j = nlohmann::json::parse(status.out);
    address = j.at("address");
    EXPECT_EQ(j.at("total").at("CPU").get<double>(), 2) << status.out;
  } catch (const std::exception& e) {
    FAIL() << "ray status --json: " << e.what() << "\n" << status.out;
  }
  ASSERT_NE(address.find(':'), std::string::npos) << address;
  ASSERT_NE(address.substr(address.find(':') + 1), "0") << "--port 0 must resolve to a real port";

  auto submit = [&](const std::string& plugin, const std::vector<std::string>& args) {
    std::vector<std::string> argv{"submit", "--address", address, "--temp-dir", tmp.path(), plugin};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunRay(argv, tmp.path());
  };
  RunResult a = submit(IT_SEMANTICS_PLUGIN, {"objects", "returns", "--dir", work});
  EXPECT_EQ(a.exit_code, 0) << a.all();
  EXPECT_NE(a.out.find("CASE PASSED: returns"), std::string::npos) << a.all();
  // A finished job's objects are freed while the cluster runs on.
  RunResult large = submit(IT_SEMANTICS_PLUGIN, {"large_objects", "--dir", work});
  EXPECT_EQ(large.exit_code, 0) << large.all();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!ObjectSegmentsOfSessions(tmp.path()).empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(ObjectSegmentsOfSessions(tmp.path()), std::vector<std::string>{})
      << "segments of a finished job outlive it";
  RunResult b = submit(IT_SECOND_PLUGIN, {});
  EXPECT_EQ(b.exit_code, 0) << b.all();
  EXPECT_NE(b.out.find("second plugin: 1000003 5"), std::string::npos) << b.all();
  // The first plugin again, on workers that have now loaded both.
  RunResult again = submit(IT_SEMANTICS_PLUGIN, {"objects", "--dir", work});
  EXPECT_EQ(again.exit_code, 0) << again.all();

  RunResult stop = RunRay({"stop", "--temp-dir", tmp.path()}, tmp.path(), 30);
  EXPECT_EQ(stop.exit_code, 0) << stop.all();
  EXPECT_EQ(AwaitNoProcessesMentioning(tmp.path()), std::vector<int>{});
  EXPECT_EQ(SegmentsOfSessions(tmp.path()), std::vector<std::string>{});
}

}  // namespace
}  // namespace ray::testing
