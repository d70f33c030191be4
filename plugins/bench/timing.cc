#include "timing.h"

#include <chrono>
#include <cmath>
#include <vector>

namespace ray::bench {

Timing RayTiming() { return Timing{}; }

Timing QuickTiming() { return Timing{0, 1, 3, false}; }

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {

// Runs one call with its preparation; returns the seconds the preparation took.
double CallOnce(const Body& body, const Clock& now) {
  double paused = 0;
  if (body.prepare) {
    double t = now();
    body.prepare();
    paused = now() - t;
  }
  body.call();
  return paused;
}

}  // namespace

Rate Measure(const Timing& timing, double per_call, const Body& body, const Clock& now) {
  long step = 1;
  if (timing.warmup_s <= 0) {
    CallOnce(body, now);
  } else {
    double start = now(), paused = 0;
    long count = 0;
    while (now() - start - paused < timing.warmup_s) {
      paused += CallOnce(body, now);
      ++count;
    }
    if (timing.batch_steps) step = count / 10 + 1;
  }
  if (body.settle) body.settle();
  std::vector<double> rates;
  for (int r = 0; r < timing.repeat; ++r) {
    double start = now(), paused = 0;
    long count = 0;
    while (now() - start - paused < timing.interval_s) {
      for (long i = 0; i < step; ++i) paused += CallOnce(body, now);
      count += step;
    }
    if (body.settle) body.settle();
    rates.push_back(per_call * count / (now() - start - paused));
  }
  Rate rate;
  for (double x : rates) rate.mean += x / rates.size();
  for (double x : rates) rate.stddev += (x - rate.mean) * (x - rate.mean) / rates.size();
  rate.stddev = std::sqrt(rate.stddev);
  return rate;
}

}  // namespace ray::bench
