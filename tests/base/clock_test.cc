#include "runtime/base/clock.h"

#include <gtest/gtest.h>

namespace ray {
namespace {

TEST(ClockTest, DeadlinesAndWhatIsLeftOfThem) {
  EXPECT_EQ(DeadlineAfter(-1), -1);
  EXPECT_EQ(DeadlineAfter(int64_t{1} << 50), -1);  // too far off to matter: none
  EXPECT_EQ(MillisLeft(-1), -1);
  int64_t deadline = DeadlineAfter(60'000);
  EXPECT_GE(deadline, MonoMillis() + 59'000);
  EXPECT_GT(MillisLeft(deadline), 59'000);
  EXPECT_LE(MillisLeft(deadline), 60'000);
  EXPECT_EQ(MillisLeft(MonoMillis() - 5), 0);  // past: nothing left, never negative
}

TEST(ClockTest, AManualClockMovesOnlyWhenTold) {
  ManualClock clock(1000);
  const Clock& seam = clock;
  EXPECT_EQ(seam.MonoMillis(), 1000);
  clock.Advance(250);
  EXPECT_EQ(seam.MonoMillis(), 1250);
  EXPECT_EQ(seam.NowMillis(), 1250);
}

TEST(ClockTest, TheSystemClockFollowsTheRealOne) {
  int64_t before = MonoMillis();
  int64_t seen = Clock::System().MonoMillis();
  EXPECT_GE(seen, before);
  EXPECT_LE(seen, MonoMillis());
  EXPECT_NEAR(static_cast<double>(Clock::System().NowMillis()), static_cast<double>(NowMillis()),
              1000.0);
}

}  // namespace
}  // namespace ray
