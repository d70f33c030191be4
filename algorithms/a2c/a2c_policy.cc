#include "algorithms/a2c/a2c_policy.h"

#include <stdexcept>

#include "runtime/rllib/policy/postprocessing.h"
#include "runtime/rllib/policy/torch_policy_impl.h"

namespace ray::rllib {

Result<A2CConfig> A2CConfig::FromJson(const std::string& json) {
  A2CConfig c;
  ConfigKeys keys = CommonConfigKeys(&c);
  keys.insert({
      {"lambda", DoubleKey(&c.lambda)},
      {"vf_loss_coeff", DoubleKey(&c.vf_loss_coeff)},
      {"entropy_coeff", DoubleKey(&c.entropy_coeff)},
      {"microbatch_size", NullableInt64Key(&c.microbatch_size)},
  });
  // RLlib's A2C is A3C with sampling made synchronous: only false is meaningful.
  keys["sample_async"] = [](const nlohmann::json& v, const std::string& key) {
    if (v != false) {
      return Status::InvalidArgument("config key '" + key + "': A2C samples synchronously (use A3C for async)");
    }
    return Status::Ok();
  };
  RAY_RETURN_IF_ERROR(ApplyConfigJson(json, keys));
  RAY_RETURN_IF_ERROR(c.Validate());
  return c;
}

std::string A2CConfig::ToJson() const {
  nlohmann::json j = CommonJson();
  j.update({{"lambda", lambda},
            {"vf_loss_coeff", vf_loss_coeff},
            {"entropy_coeff", entropy_coeff},
            {"microbatch_size", microbatch_size ? nlohmann::json(*microbatch_size) : nlohmann::json(nullptr)}});
  return j.dump();
}

Status A2CConfig::Validate() const {
  RAY_RETURN_IF_ERROR(ValidateCommon());
  if (lambda < 0 || lambda > 1) return Status::InvalidArgument("config key 'lambda' must be in [0, 1]");
  if (microbatch_size && (*microbatch_size <= 0 || *microbatch_size > train_batch_size)) {
    return Status::InvalidArgument("config key 'microbatch_size' must be in [1, train_batch_size] or null");
  }
  return Status::Ok();
}

Result<std::unique_ptr<A2CPolicy>> A2CPolicy::Create(const PolicySpec& spec, const A2CConfig& config) {
  RAY_RETURN_IF_ERROR(config.Validate());
  try {
    return std::unique_ptr<A2CPolicy>(new A2CPolicy(spec, config));
  } catch (const std::invalid_argument& e) {
    return Status::InvalidArgument(e.what());
  }
}

void A2CPolicy::Postprocess(SampleBatch* traj, const std::vector<float>& next_obs) {
  if (traj->size() == 0) throw std::invalid_argument("Postprocess: empty trajectory");
  float last_r = 0.f;
  if (!traj->terminateds.back() && !next_obs.empty()) last_r = BootstrapValue(*traj, next_obs);
  Status st = ComputeAdvantages(traj, last_r, config_.gamma, config_.lambda, /*use_gae=*/true);
  if (!st.ok()) throw std::invalid_argument(st.message());
}

LossOutput A2CPolicy::Loss(const TorchBatch& b) {
  auto [dist_inputs, values, state_out] = impl().Forward(b);
  auto dist = MakeActionDistribution(spec().discrete, dist_inputs);
  auto pi_loss = -(dist->Logp(b.actions) * b.advantages).sum();
  auto vf_loss = 0.5 * (values - b.value_targets).pow(2).sum();
  auto entropy = dist->Entropy().sum();
  auto total = pi_loss + config_.vf_loss_coeff * vf_loss - config_.entropy_coeff * entropy;
  auto explained = 1 - (b.value_targets - values).var() / b.value_targets.var();
  return {total,
          {{"policy_loss", pi_loss.detach()},
           {"vf_loss", vf_loss.detach()},
           {"policy_entropy", entropy.detach()},
           {"vf_explained_var", torch::clamp_min(explained.detach(), -1.0)}}};
}

}  // namespace ray::rllib
