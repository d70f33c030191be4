#include "algorithms/ppo/ppo_config.h"

namespace ray::rllib {

Result<PPOConfig> PPOConfig::FromJson(const std::string& json) {
  return FromJson(json, PPOConfig{});
}

Result<PPOConfig> PPOConfig::FromJson(const std::string& json, const PPOConfig& base) {
  PPOConfig c = base;
  ConfigKeys keys = CommonConfigKeys(&c);
  keys.insert({
      {"use_gae", BoolKey(&c.use_gae)},
      {"use_critic", BoolKey(&c.use_critic)},
      {"lambda", DoubleKey(&c.lambda)},
      {"kl_coeff", DoubleKey(&c.kl_coeff)},
      {"kl_target", DoubleKey(&c.kl_target)},
      {"sgd_minibatch_size", Int64Key(&c.sgd_minibatch_size)},
      {"num_sgd_iter", IntKey(&c.num_sgd_iter)},
      {"shuffle_sequences", BoolKey(&c.shuffle_sequences)},
      {"vf_loss_coeff", DoubleKey(&c.vf_loss_coeff)},
      {"entropy_coeff", DoubleKey(&c.entropy_coeff)},
      {"entropy_coeff_schedule", OnlyNullKey()},
      {"clip_param", DoubleKey(&c.clip_param)},
      {"vf_clip_param", DoubleKey(&c.vf_clip_param)},
      {"simple_optimizer", BoolKey(&c.simple_optimizer)},
  });
  RAY_RETURN_IF_ERROR(ApplyConfigJson(json, keys));
  RAY_RETURN_IF_ERROR(c.Validate());
  return c;
}

std::string PPOConfig::ToJson() const {
  nlohmann::json j = CommonJson();
  j.update({
      {"use_gae", use_gae},
      {"use_critic", use_critic},
      {"lambda", lambda},
      {"kl_coeff", kl_coeff},
      {"kl_target", kl_target},
      {"sgd_minibatch_size", sgd_minibatch_size},
      {"num_sgd_iter", num_sgd_iter},
      {"shuffle_sequences", shuffle_sequences},
      {"vf_loss_coeff", vf_loss_coeff},
      {"entropy_coeff", entropy_coeff},
      {"clip_param", clip_param},
      {"vf_clip_param", vf_clip_param},
      {"simple_optimizer", simple_optimizer},
  });
  return j.dump();
}

Status PPOConfig::Validate() const {
  RAY_RETURN_IF_ERROR(ValidateCommon());
  auto bad = [](const std::string& m) { return Status::InvalidArgument(m); };
  if (lambda < 0 || lambda > 1) return bad("config key 'lambda' must be in [0, 1]");
  if (sgd_minibatch_size <= 0) return bad("config key 'sgd_minibatch_size' must be > 0");
  if (sgd_minibatch_size > train_batch_size) {
    return bad("config key 'sgd_minibatch_size' (" + std::to_string(sgd_minibatch_size) +
               ") must be <= 'train_batch_size' (" + std::to_string(train_batch_size) + ")");
  }
  if (num_sgd_iter <= 0) return bad("config key 'num_sgd_iter' must be > 0");
  if (use_gae && !use_critic) return bad("config key 'use_gae' requires 'use_critic'");
  if (kl_coeff < 0) return bad("config key 'kl_coeff' must be >= 0");
  if (kl_target <= 0) return bad("config key 'kl_target' must be > 0");
  if (clip_param <= 0) return bad("config key 'clip_param' must be > 0");
  if (vf_clip_param <= 0) return bad("config key 'vf_clip_param' must be > 0");
  return Status::Ok();
}

}  // namespace ray::rllib
