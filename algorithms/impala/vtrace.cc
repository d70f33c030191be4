#include "algorithms/impala/vtrace.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ray::rllib {

VTraceOutput VTrace(const VTraceInput& in, double clip_rho_threshold,
                    double clip_pg_rho_threshold) {
  const size_t n = in.rewards.size();
  for (size_t size : {in.log_rhos.size(), in.discounts.size(), in.values.size(),
                      in.next_values.size(), in.continues.size()}) {
    if (size != n) {
      throw std::invalid_argument("VTrace: columns have " + std::to_string(size) + " and " +
                                  std::to_string(n) + " rows");
    }
  }
  if (!(clip_rho_threshold > 0) || !(clip_pg_rho_threshold > 0)) {
    throw std::invalid_argument("VTrace: clip thresholds must be > 0");
  }
  if (n > 0 && in.continues[n - 1])
    throw std::invalid_argument("VTrace: the last row cannot continue");
  VTraceOutput out;
  out.vs.resize(n);
  out.pg_advantages.resize(n);
  double next_diff = 0;  // vs_{t+1} - V(x_{t+1}) within the sequence
  for (size_t i = n; i-- > 0;) {
    const double ratio = std::exp(static_cast<double>(in.log_rhos[i]));
    const double rho = std::min(clip_rho_threshold, ratio);
    const double c = std::min(1.0, ratio);
    const double d = in.discounts[i];
    const double v = in.values[i];
    const double carried = in.continues[i] ? next_diff : 0.0;
    const double delta = rho * (in.rewards[i] + d * in.next_values[i] - v);
    const double diff = delta + d * c * carried;
    // vs_{t+1}: the next row's target inside the sequence, else the bootstrap value.
    const double vs_next = in.next_values[i] + carried;
    out.vs[i] = static_cast<float>(v + diff);
    out.pg_advantages[i] = static_cast<float>(std::min(clip_pg_rho_threshold, ratio) *
                                              (in.rewards[i] + d * vs_next - v));
    next_diff = diff;
  }
  return out;
}

}  // namespace ray::rllib
