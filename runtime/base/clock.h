#pragma once
// Time: the wall clock, the monotonic clock, deadlines, and a seam for code whose
// decisions depend on time (it takes a Clock&, and its tests pass a ManualClock).

#include <cstdint>

namespace ray {

int64_t NowMillis();   // wall clock, ms since the epoch
int64_t MonoMillis();  // monotonic, ms
double NowSeconds();   // wall clock, s since the epoch

// The monotonic deadline `timeout_ms` from now; -1 (none) for a negative timeout or
// one too far off to matter.
int64_t DeadlineAfter(int64_t timeout_ms);
// Milliseconds left before a monotonic deadline (0 once past; -1 for none).
int MillisLeft(int64_t deadline_ms);

class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t NowMillis() const = 0;   // wall clock
  virtual int64_t MonoMillis() const = 0;  // monotonic
  // The process's real clocks.
  static const Clock& System();
};

// A clock that moves only when told: for tests.
class ManualClock : public Clock {
 public:
  explicit ManualClock(int64_t start_ms = 0) : now_ms_(start_ms) {}
  int64_t NowMillis() const override { return now_ms_; }
  int64_t MonoMillis() const override { return now_ms_; }
  void Advance(int64_t ms) { now_ms_ += ms; }

 private:
  int64_t now_ms_;
};

}  // namespace ray
