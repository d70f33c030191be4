#include "runtime/base/clock.h"

#include <algorithm>
#include <chrono>
#include <climits>

namespace ray {

int64_t NowMillis() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

int64_t MonoMillis() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

double NowSeconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

int64_t DeadlineAfter(int64_t timeout_ms) {
  constexpr int64_t kForever = int64_t{1} << 40;  // about 35 years
  return timeout_ms < 0 || timeout_ms > kForever ? -1 : MonoMillis() + timeout_ms;
}

int MillisLeft(int64_t deadline_ms) {
  if (deadline_ms < 0) return -1;
  return static_cast<int>(std::clamp<int64_t>(deadline_ms - MonoMillis(), 0, INT_MAX));
}

namespace {
class SystemClock : public Clock {
 public:
  int64_t NowMillis() const override { return ray::NowMillis(); }
  int64_t MonoMillis() const override { return ray::MonoMillis(); }
};
}  // namespace

const Clock& Clock::System() {
  static const SystemClock clock;
  return clock;
}

}  // namespace ray
