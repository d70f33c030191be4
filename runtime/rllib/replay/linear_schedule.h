#pragma once
// RLlib's LinearSchedule (utils/schedules.py): from `initial` at t = 0 to `final` at
// t = timesteps, then `final`. timesteps <= 0: `final` from the start. Pure code.

#include <algorithm>
#include <cstdint>

namespace ray::rllib {

struct LinearSchedule {
  int64_t timesteps = 0;
  double initial = 1.0;
  double final = 0.0;

  double Value(int64_t t) const {
    if (timesteps <= 0 || t >= timesteps) return final;
    const double fraction = static_cast<double>(std::max<int64_t>(t, 0)) / timesteps;
    return initial + fraction * (final - initial);
  }
};

}  // namespace ray::rllib
