#include "runtime/rllib/policy/continuous_policy.h"

#include <cmath>
#include <stdexcept>

#include "runtime/rllib/policy/continuous_policy_impl.h"
#include "runtime/rllib/policy/torch_policy_impl.h"
#include "runtime/rllib/replay/n_step.h"

namespace ray::rllib {

void GradInto(const torch::Tensor& loss, const std::vector<torch::Tensor>& params, std::vector<torch::Tensor>* out,
              size_t offset) {
  auto grads = torch::autograd::grad({loss}, params, /*grad_outputs=*/{}, /*retain_graph=*/true,
                                     /*create_graph=*/false, /*allow_unused=*/true);
  if (out->size() < offset + grads.size()) out->resize(offset + grads.size());
  for (size_t i = 0; i < grads.size(); ++i) (*out)[offset + i] = grads[i];
}

ContinuousReplayPolicy::ContinuousReplayPolicy(const PolicySpec& spec, Options options)
    : spec_(spec), options_(std::move(options)) {
  const std::string& who = options_.name;
  if (spec.discrete) throw std::invalid_argument(who + " needs a Box action space (this env's actions are Discrete)");
  if (spec.obs_dim <= 0 || spec.num_actions <= 0) throw std::invalid_argument(who + ": obs_dim and num_actions must be > 0");
  if (static_cast<int>(spec.action_low.size()) != spec.num_actions ||
      static_cast<int>(spec.action_high.size()) != spec.num_actions) {
    throw std::invalid_argument(who + ": the action space's bounds are missing");
  }
  for (int k = 0; k < spec.num_actions; ++k) {
    if (!std::isfinite(spec.action_low[k]) || !std::isfinite(spec.action_high[k]) ||
        !(spec.action_low[k] < spec.action_high[k])) {
      throw std::invalid_argument(who + ": action dimension " + std::to_string(k) +
                                  " needs finite bounds low < high");
    }
  }
}

ContinuousReplayPolicy::~ContinuousReplayPolicy() = default;

void ContinuousReplayPolicy::SetNets(std::unique_ptr<ContinuousNets> nets) {
  nets_ = std::move(nets);
  nets_->low = ToTensor(spec_.action_low, 1, spec_.num_actions).squeeze(0);
  nets_->high = ToTensor(spec_.action_high, 1, spec_.num_actions).squeeze(0);
  for (const auto& [target, source] : nets_->targets) SoftUpdate(target, source, 1.0);
}

void ContinuousReplayPolicy::UpdateTarget() {
  for (const auto& [target, source] : nets_->targets) SoftUpdate(target, source, options_.tau);
}

void ContinuousReplayPolicy::Postprocess(SampleBatch* traj, const std::vector<float>& next_obs) {
  if (options_.done_at_truncation) {
    for (int64_t i = 0; i < traj->size(); ++i) {
      if (traj->truncateds[i]) traj->terminateds[i] = 1;
    }
  }
  PostprocessNStep(traj, next_obs, options_.gamma, options_.n_step, options_.name);
}

LossStep ContinuousReplayPolicy::Compute(const SampleBatch& b) {
  const std::string& who = options_.name;
  b.Validate();
  if (b.size() == 0 || b.new_obs.empty()) {
    throw std::invalid_argument(who + ": the batch is empty or has no new_obs (not postprocessed)");
  }
  if (b.obs_dim != spec_.obs_dim || b.action_dim != spec_.num_actions) {
    throw std::invalid_argument(who + ": batch widths (obs " + std::to_string(b.obs_dim) + ", actions " +
                                std::to_string(b.action_dim) + ") are not the policy's (" +
                                std::to_string(spec_.obs_dim) + ", " + std::to_string(spec_.num_actions) + ")");
  }
  ReplayTensors t;
  t.n = b.size();
  t.obs = ToTensor(b.obs, t.n, spec_.obs_dim);
  t.new_obs = ToTensor(b.new_obs, t.n, spec_.obs_dim);
  t.actions = torch::clamp(Squash(ToTensor(b.actions, t.n, spec_.num_actions), nets_->low, nets_->high), -1.0, 1.0);
  t.rewards = ToTensor(b.rewards, t.n, 1).squeeze(1);
  std::vector<float> done(b.terminateds.begin(), b.terminateds.end());
  t.dones = ToTensor(done, t.n, 1).squeeze(1);
  t.weights = b.weights.empty() ? torch::ones({t.n}) : ToTensor(b.weights, t.n, 1).squeeze(1);
  LossStep step = Losses(t);
  last_td_ = ToVector(step.td.detach());
  return step;
}

std::vector<float> ContinuousReplayPolicy::ComputeTDErrors(const SampleBatch& batch) {
  std::vector<float> kept = std::move(last_td_);
  Compute(batch);
  std::vector<float> td = std::move(last_td_);
  last_td_ = std::move(kept);
  return td;
}

void ContinuousReplayPolicy::Apply(LossStep& step) {
  const auto params = nets_->weights.Parameters();
  {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < params.size(); ++i) {
      auto p = params[i];
      if (i < step.grads.size() && step.grads[i].defined()) p.mutable_grad() = step.grads[i].detach();
      else p.mutable_grad() = torch::zeros_like(p);
    }
  }
  for (size_t g = 0; g < nets_->groups.size(); ++g) {
    if (!step.step_groups.empty() && !step.step_groups[g]) continue;
    auto& group = nets_->groups[g];
    if (options_.grad_clip) torch::nn::utils::clip_grad_norm_(group.params, *options_.grad_clip);
    group.optimizer->step();
  }
  for (auto p : params) p.mutable_grad() = torch::Tensor();
  ++learn_steps_;
}

LearnerStats ContinuousReplayPolicy::LearnOnBatch(const SampleBatch& batch) {
  LossStep step = Compute(batch);
  Apply(step);
  return step.stats;
}

Gradients ContinuousReplayPolicy::ComputeGradients(const SampleBatch& batch) {
  LossStep step = Compute(batch);
  Gradients out;
  out.num_rows = batch.size();
  out.grads = FlattenTensors(step.grads, nets_->weights.Parameters());
  out.info = step.stats;
  return out;
}

void ContinuousReplayPolicy::ApplyGradients(const std::vector<float>& grads) {
  nets_->weights.SetGradients(grads, "ApplyGradients");
  LossStep step;
  for (const auto& p : nets_->weights.Parameters()) step.grads.push_back(p.grad());
  // The groups this step would update: the algorithm decides from num_learn_steps().
  step.step_groups = GroupsToStep();
  Apply(step);
}

std::vector<float> ContinuousReplayPolicy::GetWeights() const { return nets_->weights.Flatten(); }

void ContinuousReplayPolicy::SetWeights(const std::vector<float>& weights) {
  nets_->weights.Assign(weights, "SetWeights");
}

void ContinuousReplayPolicy::SaveState(const std::string& path) const {
  nets_->checkpoint.Save(path, {{"timesteps_trained", timestep_}, {"num_learn_steps", learn_steps_}}, options_.name);
}

void ContinuousReplayPolicy::RestoreState(const std::string& path) {
  nets_->checkpoint.Restore(path, {{"timesteps_trained", &timestep_}, {"num_learn_steps", &learn_steps_}},
                            options_.name);
}

}  // namespace ray::rllib
