#include "algorithms/impala/impala_policy.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "algorithms/impala/vtrace.h"
#include "runtime/rllib/policy/torch_policy_impl.h"

namespace ray::rllib {

Result<std::unique_ptr<IMPALAPolicy>> IMPALAPolicy::Create(const PolicySpec& spec,
                                                           const IMPALAConfig& config) {
  RAY_RETURN_IF_ERROR(config.Validate());
  try {
    return std::unique_ptr<IMPALAPolicy>(new IMPALAPolicy(spec, config));
  } catch (const std::invalid_argument& e) {
    return Status::InvalidArgument(e.what());
  }
}

void FillNextObservations(SampleBatch* traj, const std::vector<float>& next_obs) {
  const int64_t n = traj->size();
  const size_t w = static_cast<size_t>(traj->obs_dim);
  if (n == 0) throw std::invalid_argument("Postprocess: empty trajectory");
  if (!next_obs.empty() && next_obs.size() != w) {
    throw std::invalid_argument("Postprocess: next_obs has " + std::to_string(next_obs.size()) +
                                " floats, obs_dim is " + std::to_string(w));
  }
  traj->new_obs.assign(traj->obs.begin() + static_cast<std::ptrdiff_t>(w), traj->obs.end());
  if (next_obs.empty()) {
    traj->new_obs.insert(traj->new_obs.end(), traj->obs.end() - static_cast<std::ptrdiff_t>(w),
                         traj->obs.end());
  } else {
    traj->new_obs.insert(traj->new_obs.end(), next_obs.begin(), next_obs.end());
  }
}

void IMPALAPolicy::Postprocess(SampleBatch* traj, const std::vector<float>& next_obs) {
  FillNextObservations(traj, next_obs);
}

namespace {

// Row t+1 continues row t's sequence: same episode, not ended, and row t's recorded
// next observation is row t+1's observation.
std::vector<uint8_t> Continues(const SampleBatch& b) {
  const int64_t n = b.size();
  const size_t w = static_cast<size_t>(b.obs_dim);
  std::vector<uint8_t> out(n, 0);
  for (int64_t t = 0; t + 1 < n; ++t) {
    if (b.terminateds[t] || b.truncateds[t] || b.eps_id[t] != b.eps_id[t + 1]) continue;
    out[t] = std::equal(b.new_obs.begin() + t * w, b.new_obs.begin() + (t + 1) * w,
                        b.obs.begin() + (t + 1) * w);
  }
  return out;
}

}  // namespace

SampleBatch IMPALAPolicy::WithVTrace(const SampleBatch& batch) {
  batch.Validate();
  if (batch.size() == 0) throw std::invalid_argument("IMPALA: empty batch");
  if (batch.new_obs.empty())
    throw std::invalid_argument("IMPALA: the batch has no new_obs (not postprocessed)");
  TorchBatch t = impl().ToTensors(batch);
  VTraceInput in;
  {
    torch::NoGradGuard no_grad;
    auto [dist_inputs, values, state_out] = impl().ForwardRows(t.obs);
    auto logp = MakeActionDistribution(spec().discrete, dist_inputs)->Logp(t.actions);
    auto next = ToTensor(batch.new_obs, batch.size(), spec().obs_dim);
    in.log_rhos = ToVector(logp - t.action_logp);
    in.values = ToVector(values);
    in.next_values = ToVector(impl().ForwardRows(next).values);
  }
  in.rewards = batch.rewards;
  in.discounts.resize(batch.size());
  for (int64_t i = 0; i < batch.size(); ++i) {
    in.discounts[i] = batch.terminateds[i] ? 0.f : static_cast<float>(config_.gamma);
  }
  in.continues = Continues(batch);
  const double inf = std::numeric_limits<double>::infinity();
  VTraceOutput v = VTrace(in, config_.vtrace_clip_rho_threshold.value_or(inf),
                          config_.vtrace_clip_pg_rho_threshold.value_or(inf));
  SampleBatch out = batch;
  out.advantages = std::move(v.pg_advantages);
  out.value_targets = std::move(v.vs);
  return out;
}

LearnerStats IMPALAPolicy::LearnOnBatch(const SampleBatch& batch) {
  return TorchPolicy::LearnOnBatch(WithVTrace(batch));
}

Gradients IMPALAPolicy::ComputeGradients(const SampleBatch& batch) {
  return TorchPolicy::ComputeGradients(WithVTrace(batch));
}

LossOutput IMPALAPolicy::Loss(const TorchBatch& b) {
  auto [dist_inputs, values, state_out] = impl().Forward(b);
  auto dist = MakeActionDistribution(spec().discrete, dist_inputs);
  auto pi_loss = -(dist->Logp(b.actions) * b.advantages).sum();
  auto vf_loss = 0.5 * (values - b.value_targets).pow(2).sum();
  auto entropy = dist->Entropy().sum();
  auto total = pi_loss + config_.vf_loss_coeff * vf_loss - config_.entropy_coeff * entropy;
  return {total,
          {{"policy_loss", pi_loss.detach()},
           {"vf_loss", vf_loss.detach()},
           {"entropy", entropy.detach()},
           {"mean_vs", b.value_targets.mean()}}};
}

}  // namespace ray::rllib
