#pragma once
// V-trace (Espeholt et al. 2018, "IMPALA", arXiv:1802.01561, section 4), as RLlib's
// vtrace.from_importance_weights with lambda 1, over one batch in row order. Rows are
// consecutive steps of sequences; `continues[t]` says row t+1 is the step after row t
// in the same sequence (false at a sequence's last row). For each row t:
//   ratio_t = exp(log_rhos_t)      (pi(a_t|x_t) / mu(a_t|x_t))
//   rho_t   = min(clip_rho_threshold, ratio_t),  c_t = min(1, ratio_t)
//   delta_t = rho_t * (r_t + discount_t * V(x_{t+1}) - V(x_t))
//   vs_t - V(x_t) = delta_t + discount_t * c_t * (vs_{t+1} - V(x_{t+1}))  [0 past a
//                   sequence's last row]
//   pg_advantage_t = min(clip_pg_rho_threshold, ratio_t) *
//                    (r_t + discount_t * vs_{t+1} - V(x_t)),  vs_{t+1} = V(x_{t+1})
//                    past a sequence's last row (the bootstrap value)
// discount_t is gamma, or 0 when the episode terminated after row t. A threshold of
// +infinity means no clipping (RLlib's None). Pure code.

#include <cstdint>
#include <vector>

namespace ray::rllib {

struct VTraceInput {
  std::vector<float> log_rhos;   // log(pi/mu) of the action taken
  std::vector<float> discounts;  // gamma, or 0 after a terminal step
  std::vector<float> rewards;
  std::vector<float> values;       // V(x_t)
  std::vector<float> next_values;  // V(x_{t+1}) (the observation after the step)
  std::vector<uint8_t> continues;  // 1: row t+1 continues row t's sequence
};

struct VTraceOutput {
  std::vector<float> vs;             // value targets
  std::vector<float> pg_advantages;  // policy-gradient advantages
};

// Throws std::invalid_argument when the columns' sizes differ or a threshold is <= 0,
// or when continues[last] is set.
VTraceOutput VTrace(const VTraceInput& in, double clip_rho_threshold, double clip_pg_rho_threshold);

}  // namespace ray::rllib
