#include "runtime/raylet/plugin_cache.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "runtime/base/fs.h"
#include "tests/test_util/temp_dir.h"

namespace ray::raylet {
namespace {

// A fetcher that answers from `answers` (or NotFound) and counts its calls.
struct FakeGcs {
  std::map<std::string, Result<std::string>> answers;
  int calls = 0;
  PluginCache::Fetch Fetcher() {
    return [this](const std::string& hash) -> Result<std::string> {
      ++calls;
      auto it = answers.find(hash);
      if (it == answers.end()) return Status::NotFound("no plugin " + hash);
      return it->second;
    };
  }
};

// A fresh plugin directory, and a cache over it that fetches from `gcs`.
class PluginCacheTest : public ::testing::Test {
 protected:
  test_util::TempDir dir;
  FakeGcs gcs;
  PluginCache cache{dir.path(), gcs.Fetcher()};
};

TEST_F(PluginCacheTest, FetchesAMissingPluginOnceAndWritesItExecutable) {
  gcs.answers.emplace("abc", std::string("ELF bytes"));
  EXPECT_TRUE(cache.Ensure("abc"));
  EXPECT_TRUE(cache.Ensure("abc"));
  EXPECT_EQ(cache.PathOf("abc"), dir.path() + "/abc.so");
  EXPECT_EQ(gcs.calls, 1);
  auto bytes = ReadFile(dir.path() + "/abc.so");
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(*bytes, "ELF bytes");
  struct stat st {};
  ASSERT_EQ(::stat((dir.path() + "/abc.so").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);
}

TEST_F(PluginCacheTest, ACopyAlreadyOnDiskIsNotFetched) {
  ASSERT_TRUE(WriteFile(dir.path() + "/abc.so", "local").ok());
  EXPECT_EQ(cache.PathOf("abc"), dir.path() + "/abc.so");
  EXPECT_TRUE(cache.Ensure("abc"));
  EXPECT_EQ(gcs.calls, 0);
}

TEST_F(PluginCacheTest, WhileTheGcsIsDownTheTaskWaitsThenThePluginComes) {
  gcs.answers.emplace("abc", Status::Unavailable("the GCS does not answer"));
  EXPECT_FALSE(cache.Ensure("abc"));
  EXPECT_FALSE(cache.Ensure("abc"));  // asked again each time
  EXPECT_EQ(gcs.calls, 2);
  gcs.answers.erase("abc");
  gcs.answers.emplace("abc", std::string("ELF"));
  EXPECT_TRUE(cache.Ensure("abc"));
  EXPECT_TRUE(ReadFile(dir.path() + "/abc.so").ok());
}

TEST_F(PluginCacheTest, APluginTheGcsLacksIsNotWaitedFor) {
  // The task goes ahead: its worker reports the missing file as the task's error.
  EXPECT_TRUE(cache.Ensure("missing"));
  EXPECT_EQ(cache.PathOf("missing"), dir.path() + "/missing.so");
  EXPECT_FALSE(ReadFile(dir.path() + "/missing.so").ok());
}

}  // namespace
}  // namespace ray::raylet
