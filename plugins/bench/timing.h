#pragma once
// How `ray microbenchmark` times one metric. Ray's way (timeit in Ray's
// python/ray/_private/ray_microbenchmark_helpers.py): run the body for a 1 s warm-up,
// counting calls; then measure 4 times for 2 s each, reading the clock only every
// count/10 + 1 calls; report the mean rate and its (population) standard deviation.
// The quick way (--quick): one warm-up call, then 3 measurements of 1 s, reading the
// clock after every call. Pure code over a clock seam, so it is unit-tested.

#include <functional>

namespace ray::bench {

struct Timing {
  double warmup_s = 1;    // run the body this long first (0: run it once)
  double interval_s = 2;  // the length of one measurement
  int repeat = 4;         // measurements
  bool batch_steps = true;  // read the clock every (warm-up calls / 10 + 1) calls
};

// Ray's timing, or the quick one.
Timing RayTiming();
Timing QuickTiming();

// One metric's work. `call` is the body Ray times. `prepare`, when set, runs before
// every call off the clock (making the fresh objects a call needs). `settle`, when set,
// runs at the end of each measurement on the clock (waiting until the work the calls
// started is done, e.g. until the store holds every put).
struct Body {
  std::function<void()> call;
  std::function<void()> prepare;
  std::function<void()> settle;
};

struct Rate {
  double mean = 0;
  double stddev = 0;
};

// Seconds from a monotonic clock.
using Clock = std::function<double()>;
double SteadySeconds();

// Runs `body` as `timing` says; the rate is calls * per_call per second of the clock,
// not counting the time spent in `prepare`.
Rate Measure(const Timing& timing, double per_call, const Body& body,
             const Clock& now = SteadySeconds);

}  // namespace ray::bench
