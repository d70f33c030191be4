#pragma once
// The gradient estimates of ES and ARS from antithetic perturbation pairs: for each
// pair, the returns of theta + sigma * eps and theta - sigma * eps, eps being the
// noise table's slice at the pair's index. Pure code.
//
// ES (Salimans et al. 2017; RLlib's ESTrainer): every return of the batch is replaced
// by its centered rank in [-0.5, 0.5]; g = sum_i (rank+_i - rank-_i) eps_i / (2n). The
// trainer then steps Adam along -g + l2_coeff * theta.
//
// ARS (Mania et al. 2018, "Simple random search provides a competitive approach to
// reinforcement learning", V1-t/V2-t; RLlib's ARSTrainer): only the pairs whose better
// return, max(r+, r-), is in the top rollouts_used / num_rollouts fraction are kept;
// g = sum_kept (r+ - r-) eps / k, divided by the standard deviation of the kept
// returns (unless it is ~0). The trainer then steps SGD along -g.

#include <cstdint>
#include <vector>

#include <msgpack.hpp>

#include "algorithms/es/noise_table.h"

namespace ray::rllib {

// One antithetic pair as a worker reports it.
struct PerturbedPair {
  int64_t noise_index = 0;
  double return_pos = 0, return_neg = 0;
  int64_t length_pos = 0, length_neg = 0;
  MSGPACK_DEFINE_ARRAY(noise_index, return_pos, return_neg, length_pos, length_neg);
};

// RLlib's compute_centered_ranks: rank (0-based, ties broken by position) over
// n - 1, minus 0.5. One value: 0.
std::vector<double> CenteredRanks(const std::vector<double>& x);

// ES's estimate (see above); dim floats. Empty pairs: zeros.
std::vector<float> EsGradient(const std::vector<PerturbedPair>& pairs, const NoiseTable& noise, int64_t dim);

// The indices of the pairs ARS keeps: the ceil(n * rollouts_used / num_rollouts)
// best by max(r+, r-) (at least one), in their original order.
std::vector<size_t> ArsTopPairs(const std::vector<PerturbedPair>& pairs, int64_t rollouts_used,
                                int64_t num_rollouts);

// ARS's estimate over the pairs ArsTopPairs keeps (see above); dim floats.
std::vector<float> ArsGradient(const std::vector<PerturbedPair>& pairs, const NoiseTable& noise, int64_t dim,
                               int64_t rollouts_used, int64_t num_rollouts);

}  // namespace ray::rllib
