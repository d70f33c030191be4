// PPO policy: Schulman et al., "Proximal Policy Optimization Algorithms",
// arXiv:1707.06347, in the shape of RLlib's PPOTorchPolicy (loss in ppo_loss.cc, GAE in
// runtime/rllib/policy/postprocessing.cc). This file holds the train step: advantage
// standardisation, epochs of shuffled minibatch Adam updates, and the adaptive KL
// coefficient
//   kl > 2 * kl_target   -> kl_coeff *= 1.5
//   kl < 0.5 * kl_target -> kl_coeff *= 0.5
// applied once per train step with the step's mean KL (RLlib's KLCoeffMixin.update_kl).

#include "algorithms/ppo/ppo_policy.h"

#include <torch/torch.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "algorithms/ppo/ppo_loss.h"
#include "runtime/rllib/policy/postprocessing.h"
#include "runtime/rllib/policy/torch_policy_impl.h"

namespace ray::rllib {

Result<std::unique_ptr<PPOPolicy>> PPOPolicy::Create(const PolicySpec& spec,
                                                     const PPOConfig& config) {
  RAY_RETURN_IF_ERROR(config.Validate());
  try {
    return std::unique_ptr<PPOPolicy>(new PPOPolicy(spec, config));
  } catch (const std::invalid_argument& e) {
    return Status::InvalidArgument(e.what());
  }
}

PPOPolicy::PPOPolicy(const PolicySpec& spec, const PPOConfig& config)
    : TorchPolicy(spec, config), config_(config), kl_coeff_(config.kl_coeff) {}

void PPOPolicy::Postprocess(SampleBatch* traj, const std::vector<float>& next_obs) {
  if (traj->size() == 0) throw std::invalid_argument("Postprocess: empty trajectory");
  float bootstrap = 0.f;
  if (!traj->terminateds.back() && config_.use_critic && !next_obs.empty()) {
    bootstrap = BootstrapValue(*traj, next_obs);
  }
  Status st = ComputeGaeForTrajectory(traj, bootstrap, config_.gamma, config_.lambda,
                                      config_.use_gae, config_.use_critic);
  if (!st.ok()) throw std::invalid_argument(st.message());
}

LossOutput PPOPolicy::Loss(const TorchBatch& b) {
  auto [dist_inputs, values, state_out] = impl().Forward(b);
  auto curr = MakeActionDistribution(spec().discrete, dist_inputs);
  auto prev = MakeActionDistribution(spec().discrete, b.action_dist_inputs);
  PPOLossCoeffs coeffs;
  coeffs.clip_param = config_.clip_param;
  coeffs.vf_clip_param = config_.vf_clip_param;
  coeffs.vf_loss_coeff = config_.vf_loss_coeff;
  coeffs.entropy_coeff = config_.entropy_coeff;
  coeffs.kl_coeff = kl_coeff_;
  coeffs.use_critic = config_.use_critic;
  PPOLossTerms t = ComputePPOLoss(*curr, values, *prev, b.actions, b.action_logp, b.advantages,
                                  b.value_targets, coeffs);
  return {t.total_loss,
          {{"policy_loss", t.policy_loss}, {"vf_loss", t.vf_loss},
           {"vf_explained_var", t.vf_explained_var}, {"kl", t.kl}, {"entropy", t.entropy}}};
}

LearnerStats PPOPolicy::LearnOnBatch(const SampleBatch& batch) {
  const int64_t n = batch.size();
  if (n == 0 || batch.advantages.empty()) {
    throw std::invalid_argument("LearnOnBatch: the batch is empty or not postprocessed");
  }
  const PPOConfig& c = config_;
  SampleBatch standardized = batch;
  Standardize(&standardized.advantages);
  if (batch.dist_dim != impl().model->dist_dim()) {
    throw std::invalid_argument("LearnOnBatch: batch widths do not match the policy");
  }
  const TorchBatch all = impl().ToTensors(standardized);

  const double lr = UpdateLr();
  SetTimestep(timestep() + n);

  // Minibatches of rows; for a recurrent model, of whole sequences (about
  // sgd_minibatch_size rows each, as RLlib's: sgd_minibatch_size / max_seq_len of them).
  const bool recurrent = all.seq_lens.defined();
  const int64_t units = recurrent ? all.num_sequences() : n;
  const int64_t per_unit = recurrent ? c.model.max_seq_len : 1;
  const int64_t mb = std::clamp<int64_t>(c.sgd_minibatch_size / per_unit, 1, units);
  const int64_t num_minibatches = std::max<int64_t>(1, units / mb);
  std::vector<int64_t> perm(units);
  std::iota(perm.begin(), perm.end(), 0);

  int64_t num_sgd_steps = 0;
  torch::Tensor sums;  // [6] running sums of the loss terms
  for (int epoch = 0; epoch < c.num_sgd_iter; ++epoch) {
    if (c.shuffle_sequences) std::shuffle(perm.begin(), perm.end(), impl().rng);
    auto perm_t = torch::from_blob(perm.data(), {units}, torch::kInt64);
    for (int64_t i = 0; i < num_minibatches; ++i) {
      const TorchBatch minibatch =
          recurrent ? all.SelectSequences({perm.begin() + i * mb, perm.begin() + (i + 1) * mb})
                    : all.Select(perm_t.narrow(0, i * mb, mb));
      LossOutput loss = Loss(minibatch);
      impl().optimizer->zero_grad();
      loss.total_loss.backward();
      impl().ClipGradients();
      impl().optimizer->step();

      // Summed as one tensor and read once at the end: item() per step costs a sync.
      auto terms = torch::stack({loss.total_loss, loss.stats["policy_loss"], loss.stats["vf_loss"],
                                 loss.stats["vf_explained_var"], loss.stats["kl"],
                                 loss.stats["entropy"]})
                       .detach();
      sums = sums.defined() ? sums + terms : terms;
      ++num_sgd_steps;
    }
  }
  auto mean = (sums / static_cast<double>(num_sgd_steps)).to(torch::kDouble);
  const double* m = mean.data_ptr<double>();
  LearnerStats stats = {{"total_loss", m[0]},      {"policy_loss", m[1]}, {"vf_loss", m[2]},
                        {"vf_explained_var", m[3]}, {"kl", m[4]},          {"entropy", m[5]},
                        {"cur_kl_coeff", kl_coeff_}, {"cur_lr", lr},
                        {"entropy_coeff", c.entropy_coeff},
                        {"num_sgd_steps", static_cast<double>(num_sgd_steps)}};
  if (m[4] > 2.0 * c.kl_target) {
    kl_coeff_ *= 1.5;
  } else if (m[4] < 0.5 * c.kl_target) {
    kl_coeff_ *= 0.5;
  }
  return stats;
}

}  // namespace ray::rllib
