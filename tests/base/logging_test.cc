#include "runtime/base/logging.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <stdlib.h>

#include <string>

#include "runtime/base/util.h"
#include "tests/test_util/temp_dir.h"

namespace ray {
namespace {

class LoggingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(dir_.path().empty());
    ::unsetenv("RAY_BACKEND_LOG_LEVEL");
  }
  void TearDown() override {
    ::unsetenv("RAY_BACKEND_LOG_LEVEL");
    spdlog::drop_all();
    spdlog::set_default_logger(spdlog::stderr_logger_mt("test-default"));
  }
  std::string LogFile(const std::string& name) const { return dir_.path() + "/" + name + ".log"; }
  std::string Contents(const std::string& name) {
    spdlog::default_logger()->flush();
    auto r = ReadFile(LogFile(name));
    return r.ok() ? *r : "";
  }

  test_util::TempDir dir_;
};

TEST_F(LoggingTest, FileLoggerHonoursLevel) {
  InitLogging("unit-a", LogFile("a"), "warn");
  RAY_LOG_INFO("info line {}", 1);
  RAY_LOG_WARN("warn line {}", 2);
  RAY_LOG_ERROR("error line {}", 3);
  std::string log = Contents("a");
  EXPECT_EQ(log.find("info line"), std::string::npos) << log;
  EXPECT_NE(log.find("warn line 2"), std::string::npos) << log;
  EXPECT_NE(log.find("error line 3"), std::string::npos) << log;
  EXPECT_NE(log.find("unit-a"), std::string::npos) << "process name in the pattern: " << log;
}

TEST_F(LoggingTest, EnvironmentOverridesLevel) {
  ::setenv("RAY_BACKEND_LOG_LEVEL", "error", 1);
  InitLogging("unit-b", LogFile("b"), "info");
  RAY_LOG_WARN("quiet warn");
  RAY_LOG_ERROR("loud error");
  std::string log = Contents("b");
  EXPECT_EQ(log.find("quiet warn"), std::string::npos) << log;
  EXPECT_NE(log.find("loud error"), std::string::npos) << log;
}

TEST_F(LoggingTest, DebugLevelShowsDebugLines) {
  ::setenv("RAY_BACKEND_LOG_LEVEL", "debug", 1);
  InitLogging("unit-c", LogFile("c"), "info");
  RAY_LOG_DEBUG("debug line {}", 4);
  std::string log = Contents("c");
  EXPECT_NE(log.find("debug line 4"), std::string::npos)
      << "RAY_BACKEND_LOG_LEVEL=debug must enable RAY_LOG_DEBUG: " << log;
}

TEST_F(LoggingTest, UnknownLevelNameDoesNotSilenceLogging) {
  ::setenv("RAY_BACKEND_LOG_LEVEL", "verbose", 1);  // not a level name
  InitLogging("unit-d", LogFile("d"), "info");
  RAY_LOG_ERROR("still logged");
  EXPECT_NE(Contents("d").find("still logged"), std::string::npos);
}

TEST_F(LoggingTest, ReinitialisingWithTheSameNameIsAllowed) {
  InitLogging("unit-e", LogFile("e1"), "info");
  ASSERT_NO_THROW(InitLogging("unit-e", LogFile("e2"), "info"));
  RAY_LOG_INFO("goes to the second file");
  EXPECT_NE(Contents("e2").find("goes to the second file"), std::string::npos);
  ASSERT_NO_THROW(InitLogging("unit-e", "", "info"));  // and to stderr
}

}  // namespace
}  // namespace ray
