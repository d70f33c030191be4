#include "runtime/rllib/policy/postprocessing.h"

#include <algorithm>
#include <cmath>

namespace ray::rllib {

std::vector<float> DiscountCumsum(const std::vector<float>& x, double gamma) {
  std::vector<float> y(x.size());
  double acc = 0.0;
  for (size_t i = x.size(); i-- > 0;) {
    acc = x[i] + gamma * acc;
    y[i] = static_cast<float>(acc);
  }
  return y;
}

Status ComputeAdvantages(SampleBatch* traj, float last_r, double gamma, double lambda,
                         bool use_gae, bool use_critic) {
  const int64_t n = traj->size();
  if (n == 0) return Status::InvalidArgument("ComputeAdvantages: empty trajectory");
  if (use_critic && static_cast<int64_t>(traj->vf_preds.size()) != n) {
    return Status::InvalidArgument("ComputeAdvantages: vf_preds has " +
                                   std::to_string(traj->vf_preds.size()) + " rows, expected " +
                                   std::to_string(n));
  }
  if (use_gae && !use_critic) {
    return Status::InvalidArgument("ComputeAdvantages: use_gae requires use_critic");
  }
  const std::vector<float>& r = traj->rewards;
  const std::vector<float>& v = traj->vf_preds;
  std::vector<float>& adv = traj->advantages;
  std::vector<float>& targets = traj->value_targets;
  adv.assign(n, 0.f);
  targets.assign(n, 0.f);
  if (use_gae) {
    std::vector<float> delta(n);
    for (int64_t t = 0; t < n; ++t) {
      const double v_next = t + 1 < n ? v[t + 1] : last_r;
      delta[t] = static_cast<float>(r[t] + gamma * v_next - v[t]);
    }
    adv = DiscountCumsum(delta, gamma * lambda);
    for (int64_t t = 0; t < n; ++t) targets[t] = adv[t] + v[t];
    return Status::Ok();
  }
  std::vector<float> rewards_plus_v(r);
  rewards_plus_v.push_back(last_r);
  std::vector<float> returns = DiscountCumsum(rewards_plus_v, gamma);
  returns.pop_back();
  for (int64_t t = 0; t < n; ++t) {
    adv[t] = use_critic ? returns[t] - v[t] : returns[t];
    targets[t] = use_critic ? returns[t] : 0.f;
  }
  return Status::Ok();
}

Status ComputeGaeForTrajectory(SampleBatch* traj, float bootstrap_value, double gamma,
                               double lambda, bool use_gae, bool use_critic) {
  if (traj->size() == 0) return Status::InvalidArgument("ComputeGaeForTrajectory: empty");
  if (static_cast<int64_t>(traj->terminateds.size()) != traj->size()) {
    return Status::InvalidArgument("ComputeGaeForTrajectory: terminateds column is incomplete");
  }
  const float last_r = traj->terminateds.back() ? 0.f : bootstrap_value;
  return ComputeAdvantages(traj, last_r, gamma, lambda, use_gae, use_critic);
}

void Standardize(std::vector<float>* x) {
  if (x->empty()) return;
  double mean = 0;
  for (float v : *x) mean += v;
  mean /= x->size();
  double var = 0;
  for (float v : *x) var += (v - mean) * (v - mean);
  const double stddev = std::max(1e-4, std::sqrt(var / x->size()));
  for (float& v : *x) v = static_cast<float>((v - mean) / stddev);
}

std::vector<int64_t> SequenceLengths(const std::vector<int64_t>& eps_id, int max_seq_len) {
  std::vector<int64_t> lens;
  for (size_t i = 0; i < eps_id.size(); ++i) {
    if (i == 0 || eps_id[i] != eps_id[i - 1] || lens.back() == max_seq_len) lens.push_back(0);
    ++lens.back();
  }
  return lens;
}

}  // namespace ray::rllib
