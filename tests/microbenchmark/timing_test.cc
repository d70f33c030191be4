// ray::bench::Measure on a fake clock: Ray's timeit steps, the quick timing, and what
// is on and off the clock. Costs are powers of two, so the arithmetic is exact.

#include "timing.h"

#include <gtest/gtest.h>

namespace ray::bench {
namespace {

constexpr double kTick = 1.0 / 128;

struct FakeClock {
  double now = 0;
  Clock AsClock() {
    return [this] { return now; };
  }
};

TEST(MeasureTest, RaysTimingReadsTheClockEveryTenthOfTheWarmUpCalls) {
  FakeClock clock;
  long calls = 0;
  Body body;
  body.call = [&] {
    ++calls;
    clock.now += kTick;
  };
  Rate r = Measure(RayTiming(), 1, body, clock.AsClock());
  // Warm-up: 128 calls in 1 s, so steps of 13; each 2 s measurement ends after the
  // first step that reaches 2 s: 20 steps, 260 calls.
  EXPECT_EQ(calls, 128 + 4 * 260);
  EXPECT_DOUBLE_EQ(r.mean, 128);
  EXPECT_DOUBLE_EQ(r.stddev, 0);
}

TEST(MeasureTest, QuickTimingIsOneWarmUpCallThenThreeSeconds) {
  FakeClock clock;
  long calls = 0;
  Body body;
  body.call = [&] {
    ++calls;
    clock.now += kTick;
  };
  Rate r = Measure(QuickTiming(), 1, body, clock.AsClock());
  EXPECT_EQ(calls, 1 + 3 * 128);
  EXPECT_DOUBLE_EQ(r.mean, 128);
}

TEST(MeasureTest, PreparationIsOffTheClock) {
  FakeClock clock;
  long prepared = 0;
  Body body;
  body.prepare = [&] {
    ++prepared;
    clock.now += 1;  // a second of setting up per call, not counted
  };
  body.call = [&] { clock.now += kTick; };
  Rate r = Measure(QuickTiming(), 1, body, clock.AsClock());
  EXPECT_EQ(prepared, 1 + 3 * 128);
  EXPECT_DOUBLE_EQ(r.mean, 128);
}

TEST(MeasureTest, SettlingIsOnTheClockAfterEveryMeasurement) {
  FakeClock clock;
  int settled = 0;
  Body body;
  body.call = [&] { clock.now += kTick; };
  body.settle = [&] {
    ++settled;
    clock.now += 1;  // waiting a second for the work the calls started
  };
  Rate r = Measure(QuickTiming(), 1, body, clock.AsClock());
  EXPECT_EQ(settled, 1 + 3);  // after the warm-up too (off the clock there)
  EXPECT_DOUBLE_EQ(r.mean, 64);  // 128 calls in 2 s
}

TEST(MeasureTest, ReportsTheMeanAndPopulationDeviationTimesTheMultiplier) {
  FakeClock clock;
  int phase = 0;  // 0: warm-up, then one per measurement
  Body body;
  body.call = [&] { clock.now += phase <= 1 ? kTick : 2 * kTick; };
  body.settle = [&] { ++phase; };
  Timing timing = QuickTiming();
  timing.repeat = 2;
  Rate r = Measure(timing, 2, body, clock.AsClock());
  // Measurements of 2 * 128 and 2 * 64 per second.
  EXPECT_DOUBLE_EQ(r.mean, 192);
  EXPECT_DOUBLE_EQ(r.stddev, 64);
}

}  // namespace
}  // namespace ray::bench
