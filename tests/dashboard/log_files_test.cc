#include "runtime/base/log_files.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/test_util/temp_dir.h"

namespace ray {
namespace {

class LogFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(dir_.path() + "/worker-1.out") << "hello\nError: boom\nbye\nERROR again\n";
    std::ofstream(dir_.path() + "/raylet.err") << "";
    std::ofstream(dir_.path() + "/.hidden") << "no";
    std::filesystem::create_directory(dir_.path() + "/sub");
  }
  test_util::TempDir dir_;
};

TEST_F(LogFilesTest, ListsPlainFilesByName) {
  auto logs = ListLogs(dir_.path());
  ASSERT_TRUE(logs.ok()) << logs.status().message();
  ASSERT_EQ(logs->size(), 2u) << logs->dump();
  EXPECT_EQ((*logs)[0]["name"], "raylet.err");
  EXPECT_EQ((*logs)[1]["name"], "worker-1.out");
  EXPECT_EQ((*logs)[1]["size"], 34);
  EXPECT_GT((*logs)[1]["mtime_ms"].get<int64_t>(), 0);
  EXPECT_EQ(ListLogs(dir_.path() + "/none").status().code(), StatusCode::kNotFound);
}

TEST_F(LogFilesTest, ReadsWithASearchAndALineLimit) {
  auto all = ReadLog(dir_.path(), {"worker-1.out", "", 1000});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ((*all)["lines"].size(), 4u);
  EXPECT_EQ((*all)["truncated"], false);
  auto found = ReadLog(dir_.path(), {"worker-1.out", "error", 1000});
  ASSERT_TRUE(found.ok());
  ASSERT_EQ((*found)["lines"].size(), 2u);
  EXPECT_EQ((*found)["lines"][0]["n"], 2);
  EXPECT_EQ((*found)["lines"][0]["text"], "Error: boom");
  EXPECT_EQ((*found)["lines"][1]["n"], 4);
  auto last = ReadLog(dir_.path(), {"worker-1.out", "", 1});
  ASSERT_TRUE(last.ok());
  ASSERT_EQ((*last)["lines"].size(), 1u);
  EXPECT_EQ((*last)["lines"][0]["text"], "ERROR again");
  EXPECT_EQ((*last)["truncated"], true);
}

TEST_F(LogFilesTest, RefusesNamesOutsideTheDir) {
  for (std::string bad : {"../etc/passwd", "/etc/passwd", ".hidden", "sub/x", "", "a b", ".."}) {
    EXPECT_EQ(ReadLog(dir_.path(), {bad}).status().code(), StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_EQ(ReadLog(dir_.path(), {"sub"}).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(ReadLog(dir_.path(), {"nope.out"}).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace ray
