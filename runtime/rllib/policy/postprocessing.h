#pragma once
// Advantage estimation for on-policy trajectories, as RLlib's
// evaluation/postprocessing.py (compute_advantages / compute_gae_for_sample_batch).
//
// Generalized Advantage Estimation: Schulman, Moritz, Levine, Jordan, Abbeel,
// "High-Dimensional Continuous Control Using Generalized Advantage Estimation",
// arXiv:1506.02438. With V = vf_preds and V_T = last_r:
//   delta_t = r_t + gamma * V_{t+1} - V_t
//   A_t     = sum_k (gamma * lambda)^k delta_{t+k}
//   value_targets = A + V
// Without GAE: R_t = discounted sum of [r_t .. r_{T-1}, last_r];
//   A = R - V (use_critic) or R (no critic); value_targets = R (or 0 without critic).
//
// last_r is the value of the observation after the fragment's last step: 0 when the
// episode terminated there, V(s_T) when it was truncated (time limit) or the fragment
// was simply cut (truncate_episodes). No torch here.

#include <vector>

#include "runtime/base/status.h"
#include "ray/rllib/sample_batch.h"

namespace ray::rllib {

// y_t = sum_k gamma^k x_{t+k} (scipy.signal.lfilter form in RLlib).
std::vector<float> DiscountCumsum(const std::vector<float>& x, double gamma);

// Fills traj->advantages and traj->value_targets. `traj` holds consecutive steps of
// ONE episode. InvalidArgument if it is empty or its columns are inconsistent.
Status ComputeAdvantages(SampleBatch* traj, float last_r, double gamma, double lambda,
                         bool use_gae, bool use_critic = true);

// RLlib's compute_gae_for_sample_batch: last_r = 0 if the last row is terminated,
// else `bootstrap_value` (the policy's V of the observation after the last row).
Status ComputeGaeForTrajectory(SampleBatch* traj, float bootstrap_value, double gamma,
                               double lambda, bool use_gae, bool use_critic = true);

// In place: (x - mean) / max(1e-4, std), population std, as RLlib's standardized().
void Standardize(std::vector<float>* x);

// RLlib's chop_into_sequences for a batch whose rows carry their episode ids: the
// lengths of the runs of equal eps_id, each cut every max_seq_len rows, in row order.
// Requires max_seq_len > 0.
std::vector<int64_t> SequenceLengths(const std::vector<int64_t>& eps_id, int max_seq_len);

}  // namespace ray::rllib
