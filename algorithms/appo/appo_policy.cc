#include "algorithms/appo/appo_policy.h"

#include <stdexcept>

#include "runtime/rllib/policy/postprocessing.h"
#include "runtime/rllib/policy/torch_policy_impl.h"

namespace ray::rllib {

Result<APPOConfig> APPOConfig::FromJson(const std::string& json) {
  APPOConfig c;
  ConfigKeys keys = Keys(&c);
  keys["use_gae"] = BoolKey(&c.use_gae);
  keys["lambda"] = DoubleKey(&c.lambda);
  keys["clip_param"] = DoubleKey(&c.clip_param);
  RAY_RETURN_IF_ERROR(ApplyConfigJson(json, keys));
  RAY_RETURN_IF_ERROR(c.Validate());
  return c;
}

std::string APPOConfig::ToJson() const {
  nlohmann::json j = ImpalaJson();
  j.update({{"use_gae", use_gae}, {"lambda", lambda}, {"clip_param", clip_param}});
  return j.dump();
}

Status APPOConfig::Validate() const {
  RAY_RETURN_IF_ERROR(ValidateImpala());
  if (lambda < 0 || lambda > 1)
    return Status::InvalidArgument("config key 'lambda' must be in [0, 1]");
  if (!(clip_param > 0)) return Status::InvalidArgument("config key 'clip_param' must be > 0");
  return Status::Ok();
}

Result<std::unique_ptr<APPOPolicy>> APPOPolicy::Create(const PolicySpec& spec,
                                                       const APPOConfig& config) {
  RAY_RETURN_IF_ERROR(config.Validate());
  try {
    return std::unique_ptr<APPOPolicy>(new APPOPolicy(spec, config));
  } catch (const std::invalid_argument& e) {
    return Status::InvalidArgument(e.what());
  }
}

void APPOPolicy::Postprocess(SampleBatch* traj, const std::vector<float>& next_obs) {
  if (config_.vtrace) {
    IMPALAPolicy::Postprocess(traj, next_obs);
    return;
  }
  if (traj->size() == 0) throw std::invalid_argument("Postprocess: empty trajectory");
  float last_r = 0.f;
  if (!traj->terminateds.back() && !next_obs.empty()) last_r = BootstrapValue(*traj, next_obs);
  Status st = ComputeAdvantages(traj, last_r, config_.gamma, config_.lambda, config_.use_gae);
  if (!st.ok()) throw std::invalid_argument(st.message());
}

LearnerStats APPOPolicy::LearnOnBatch(const SampleBatch& batch) {
  return config_.vtrace ? IMPALAPolicy::LearnOnBatch(batch) : TorchPolicy::LearnOnBatch(batch);
}

Gradients APPOPolicy::ComputeGradients(const SampleBatch& batch) {
  return config_.vtrace ? IMPALAPolicy::ComputeGradients(batch)
                        : TorchPolicy::ComputeGradients(batch);
}

LossOutput APPOPolicy::Loss(const TorchBatch& b) {
  auto [dist_inputs, values, state_out] = impl().Forward(b);
  auto dist = MakeActionDistribution(spec().discrete, dist_inputs);
  auto ratio = torch::exp(dist->Logp(b.actions) - b.action_logp);
  auto surrogate = torch::min(
      b.advantages * ratio,
      b.advantages * torch::clamp(ratio, 1 - config_.clip_param, 1 + config_.clip_param));
  auto pi_loss = -surrogate.mean();
  auto vf_loss = 0.5 * (values - b.value_targets).pow(2).mean();
  auto entropy = dist->Entropy().mean();
  auto total = pi_loss + config_.vf_loss_coeff * vf_loss - config_.entropy_coeff * entropy;
  return {total,
          {{"policy_loss", pi_loss.detach()},
           {"vf_loss", vf_loss.detach()},
           {"entropy", entropy.detach()},
           {"mean_ratio", ratio.detach().mean()}}};
}

}  // namespace ray::rllib
