#include "algorithms/es/es_gradient.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ray::rllib {

std::vector<double> CenteredRanks(const std::vector<double>& x) {
  std::vector<double> out(x.size(), 0.0);
  if (x.size() < 2) return out;
  std::vector<size_t> order(x.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return x[a] < x[b]; });
  const double top = static_cast<double>(x.size() - 1);
  for (size_t r = 0; r < order.size(); ++r) out[order[r]] = static_cast<double>(r) / top - 0.5;
  return out;
}

std::vector<float> EsGradient(const std::vector<PerturbedPair>& pairs, const NoiseTable& noise, int64_t dim) {
  std::vector<float> g(static_cast<size_t>(dim), 0.f);
  if (pairs.empty()) return g;
  std::vector<double> returns;
  for (const PerturbedPair& p : pairs) {
    returns.push_back(p.return_pos);
    returns.push_back(p.return_neg);
  }
  const std::vector<double> ranks = CenteredRanks(returns);
  const double n = static_cast<double>(returns.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    noise.AddScaled(pairs[i].noise_index, static_cast<float>((ranks[2 * i] - ranks[2 * i + 1]) / n), &g);
  }
  return g;
}

std::vector<size_t> ArsTopPairs(const std::vector<PerturbedPair>& pairs, int64_t rollouts_used,
                                int64_t num_rollouts) {
  const double fraction = std::min(1.0, static_cast<double>(rollouts_used) / static_cast<double>(num_rollouts));
  const size_t keep = std::clamp<size_t>(static_cast<size_t>(std::ceil(fraction * pairs.size() - 1e-9)), 1,
                                         pairs.size());
  std::vector<size_t> order(pairs.size());
  std::iota(order.begin(), order.end(), 0);
  auto best = [&](size_t i) { return std::max(pairs[i].return_pos, pairs[i].return_neg); };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return best(a) > best(b); });
  order.resize(std::min(keep, order.size()));
  std::sort(order.begin(), order.end());
  return order;
}

std::vector<float> ArsGradient(const std::vector<PerturbedPair>& pairs, const NoiseTable& noise, int64_t dim,
                               int64_t rollouts_used, int64_t num_rollouts) {
  std::vector<float> g(static_cast<size_t>(dim), 0.f);
  if (pairs.empty()) return g;
  const std::vector<size_t> kept = ArsTopPairs(pairs, rollouts_used, num_rollouts);
  double sum = 0, sum_sq = 0;
  for (size_t i : kept) {
    sum += pairs[i].return_pos + pairs[i].return_neg;
    sum_sq += pairs[i].return_pos * pairs[i].return_pos + pairs[i].return_neg * pairs[i].return_neg;
  }
  const double n = 2.0 * kept.size();
  const double stdev = std::sqrt(std::max(0.0, sum_sq / n - (sum / n) * (sum / n)));
  const double scale = 1.0 / static_cast<double>(kept.size()) / (stdev > 1e-8 ? stdev : 1.0);
  for (size_t i : kept) {
    noise.AddScaled(pairs[i].noise_index, static_cast<float>((pairs[i].return_pos - pairs[i].return_neg) * scale),
                    &g);
  }
  return g;
}

}  // namespace ray::rllib
