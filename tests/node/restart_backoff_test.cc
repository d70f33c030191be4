#include "runtime/node/restart_backoff.h"

#include <gtest/gtest.h>

#include <vector>

namespace ray::node {
namespace {

TEST(RestartBackoffTest, AStableDaemonIsRestartedAfterTheInitialWait) {
  RestartBackoff b({100, 5000, 10000});
  EXPECT_EQ(b.OnExit(0, 60000), 100);
  EXPECT_EQ(b.OnExit(60100, 120000), 100);
  EXPECT_EQ(b.restarts(), 2);
}

TEST(RestartBackoffTest, QuickExitsDoubleTheWaitUpToTheMaximum) {
  RestartBackoff b({100, 1000, 10000});
  int64_t t = 0;
  std::vector<int64_t> waits;
  for (int i = 0; i < 6; ++i) {
    int64_t wait = b.OnExit(t, t + 50);
    waits.push_back(wait);
    t += 50 + wait;
  }
  EXPECT_EQ(waits, (std::vector<int64_t>{100, 200, 400, 800, 1000, 1000}));
}

TEST(RestartBackoffTest, AStableRunResetsTheWait) {
  RestartBackoff b({100, 5000, 10000});
  EXPECT_EQ(b.OnExit(0, 10), 100);
  EXPECT_EQ(b.OnExit(110, 120), 200);
  EXPECT_EQ(b.OnExit(320, 20320), 100);
}

}  // namespace
}  // namespace ray::node
