#include "runtime/api/runtime_env.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "runtime/api/working_dir_pack.h"
#include "runtime/base/fs.h"

namespace ray::core {
namespace {

TEST(RuntimeEnvTest, ParsesTheSupportedKeys) {
  auto env = ParseRuntimeEnv(
      R"({"env_vars": {"A": "1", "B": "two"}, "working_dir": "/w", "plugins": ["x.so"]})", "t");
  ASSERT_TRUE(env.ok()) << env.status().ToString();
  EXPECT_EQ(env->env_vars.at("B"), "two");
  EXPECT_EQ(env->working_dir, "/w");
  EXPECT_EQ(env->plugins, std::vector<std::string>{"x.so"});
  EXPECT_TRUE(ParseRuntimeEnv("", "t")->empty());
  EXPECT_TRUE(ParseRuntimeEnv("null", "t")->empty());
}

TEST(RuntimeEnvTest, RefusesUnknownKeysAndBadValuesNamingThem) {
  auto pip = ParseRuntimeEnv(R"({"pip": ["numpy"]})", "task F");
  ASSERT_FALSE(pip.ok());
  EXPECT_EQ(pip.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(pip.status().message().find("task F: runtime_env key 'pip' is not supported"),
            std::string::npos);
  EXPECT_FALSE(ParseRuntimeEnv(R"({"env_vars": {"A": 1}})", "t").ok());
  EXPECT_FALSE(ParseRuntimeEnv(R"({"env_vars": {"A=B": "1"}})", "t").ok());
  EXPECT_FALSE(ParseRuntimeEnv(R"({"working_dir": ""})", "t").ok());
  EXPECT_FALSE(ParseRuntimeEnv(R"({"plugins": "x.so"})", "t").ok());
  EXPECT_FALSE(ParseRuntimeEnv("[1]", "t").ok());
  EXPECT_FALSE(ParseRuntimeEnv("{", "t").ok());
}

TEST(RuntimeEnvTest, CanonicalFormIsTheSameForTheSameEnvironment) {
  auto a = ParseRuntimeEnv(R"({"env_vars": {"B": "2", "A": "1"}, "working_dir": "h"})", "t");
  auto b = ParseRuntimeEnv(R"({"working_dir": "h", "env_vars": {"A": "1", "B": "2"}})", "t");
  EXPECT_EQ(Canonical(*a), Canonical(*b));
  EXPECT_EQ(Canonical(RuntimeEnv{}), "");
  EXPECT_EQ(Canonical(*ParseRuntimeEnv(Canonical(*a), "t")), Canonical(*a));
}

TEST(RuntimeEnvTest, ATasksEnvVarsMergeOverItsParents) {
  RuntimeEnv job{{{"A", "1"}, {"B", "2"}}, "wd", {"p"}};
  RuntimeEnv task{{{"B", "3"}, {"C", "4"}}, "", {}};
  RuntimeEnv merged = Merge(job, task);
  EXPECT_EQ(merged.env_vars, (std::map<std::string, std::string>{{"A", "1"}, {"B", "3"}, {"C", "4"}}));
  EXPECT_EQ(merged.working_dir, "wd");
  EXPECT_EQ(merged.plugins, std::vector<std::string>{"p"});
}

TEST(WorkingDirPackTest, UnpacksWhatWasPacked) {
  namespace fs = std::filesystem;
  fs::path root = fs::temp_directory_path() / ("wdpack-" + std::to_string(::getpid()));
  fs::create_directories(root / "src/sub");
  std::ofstream(root / "src/a.txt") << "alpha";
  std::ofstream(root / "src/sub/b.txt") << "beta";
  auto blob = PackWorkingDir((root / "src").string());
  ASSERT_TRUE(blob.ok()) << blob.status().ToString();
  EXPECT_EQ(*PackWorkingDir((root / "src").string()), *blob);  // deterministic
  ASSERT_TRUE(UnpackWorkingDir(*blob, (root / "out").string()).ok());
  EXPECT_EQ(*ReadFile((root / "out/a.txt").string()), "alpha");
  EXPECT_EQ(*ReadFile((root / "out/sub/b.txt").string()), "beta");
  EXPECT_TRUE(UnpackWorkingDir(*blob, (root / "out").string()).ok());  // there already
  EXPECT_FALSE(PackWorkingDir((root / "missing").string()).ok());
  EXPECT_FALSE(UnpackWorkingDir("garbage", (root / "bad").string()).ok());
  fs::remove_all(root);
}

}  // namespace
}  // namespace ray::core
