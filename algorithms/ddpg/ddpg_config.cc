#include "algorithms/ddpg/ddpg_config.h"

#include "runtime/rllib/config_setters.h"
#include "runtime/rllib/replay/linear_schedule.h"

namespace ray::rllib {

using Json = nlohmann::json;

DDPGConfig DDPGConfig::TD3Defaults() {
  DDPGConfig c;
  c.twin_q = true;
  c.policy_delay = 2;
  c.smooth_target_policy = true;
  c.exploration_noise_type = "gaussian";
  c.exploration_gaussian_sigma = 0.1;
  c.pure_exploration_steps = 10000;
  c.replay.buffer_size = 1000000;
  c.replay.prioritized_replay = false;
  c.replay.learning_starts = 10000;
  c.tau = 5e-3;
  c.l2_reg = 0.0;
  c.train_batch_size = 100;
  return c;
}

ConfigKeys DDPGConfig::Keys(DDPGConfig* config) {
  DDPGConfig& c = *config;
  ConfigKeys keys = CommonConfigKeys(&c);
  RefuseModelKeys(&keys, "DDPG", "actor_hiddens, critic_hiddens, actor_lr and critic_lr");
  c.replay.AddKeys(&keys);
  keys.insert({
      {"twin_q", BoolKey(&c.twin_q)},
      {"policy_delay", IntKey(&c.policy_delay)},
      {"smooth_target_policy", BoolKey(&c.smooth_target_policy)},
      {"target_noise", DoubleKey(&c.target_noise)},
      {"target_noise_clip", DoubleKey(&c.target_noise_clip)},
      {"use_state_preprocessor", OnlyValueKey(false, "state preprocessors")},
      {"actor_hiddens", HiddensKey(&c.actor_hiddens)},
      {"actor_hidden_activation", StringKey(&c.actor_hidden_activation)},
      {"critic_hiddens", HiddensKey(&c.critic_hiddens)},
      {"critic_hidden_activation", StringKey(&c.critic_hidden_activation)},
      {"exploration_should_anneal", BoolKey(&c.exploration_should_anneal)},
      {"exploration_fraction", DoubleKey(&c.exploration_fraction)},
      {"exploration_final_scale", DoubleKey(&c.exploration_final_scale)},
      {"exploration_noise_type", StringKey(&c.exploration_noise_type)},
      {"exploration_ou_noise_scale", DoubleKey(&c.exploration_ou_noise_scale)},
      {"exploration_ou_theta", DoubleKey(&c.exploration_ou_theta)},
      {"exploration_ou_sigma", DoubleKey(&c.exploration_ou_sigma)},
      {"exploration_gaussian_sigma", DoubleKey(&c.exploration_gaussian_sigma)},
      {"parameter_noise", OnlyValueKey(false, "parameter space noise")},
      {"pure_exploration_steps", Int64Key(&c.pure_exploration_steps)},
      {"critic_lr", DoubleKey(&c.critic_lr)},
      {"actor_lr", DoubleKey(&c.actor_lr)},
      {"tau", DoubleKey(&c.tau)},
      {"use_huber", BoolKey(&c.use_huber)},
      {"huber_threshold", DoubleKey(&c.huber_threshold)},
      {"l2_reg", DoubleKey(&c.l2_reg)},
      {"grad_norm_clipping", NullableDoubleKey(&c.grad_clip)},
  });
  return keys;
}

Result<DDPGConfig> DDPGConfig::FromJson(const std::string& json, DDPGConfig defaults) {
  DDPGConfig c = std::move(defaults);
  RAY_RETURN_IF_ERROR(ApplyConfigJson(json, Keys(&c)));
  RAY_RETURN_IF_ERROR(c.Validate());
  return c;
}

Status DDPGConfig::Validate() const {
  RAY_RETURN_IF_ERROR(ValidateCommon());
  RAY_RETURN_IF_ERROR(RefuseModelCatalog("DDPG and TD3", /*custom_too=*/true));
  RAY_RETURN_IF_ERROR(replay.Validate());
  auto bad = [](const std::string& m) { return Status::InvalidArgument("config key " + m); };
  for (const auto& [name, a] : {std::pair{"actor_hidden_activation", &actor_hidden_activation},
                                std::pair{"critic_hidden_activation", &critic_hidden_activation}}) {
    if (*a != "relu" && *a != "tanh" && *a != "linear") {
      return bad(std::string("'") + name + "' = \"" + *a + "\" is not relu, tanh or linear");
    }
  }
  if (policy_delay < 1) return bad("'policy_delay' must be >= 1");
  if (target_noise < 0) return bad("'target_noise' must be >= 0");
  if (target_noise_clip < 0) return bad("'target_noise_clip' must be >= 0");
  if (exploration_fraction < 0 || exploration_fraction > 1) return bad("'exploration_fraction' must be in [0, 1]");
  if (exploration_final_scale < 0) return bad("'exploration_final_scale' must be >= 0");
  if (exploration_noise_type != "ou" && exploration_noise_type != "gaussian") {
    return bad("'exploration_noise_type' = \"" + exploration_noise_type + "\" is not \"ou\" or \"gaussian\"");
  }
  if (exploration_ou_noise_scale < 0) return bad("'exploration_ou_noise_scale' must be >= 0");
  if (!(exploration_ou_theta > 0 && exploration_ou_theta < 2)) return bad("'exploration_ou_theta' must be in (0, 2)");
  if (exploration_ou_sigma < 0) return bad("'exploration_ou_sigma' must be >= 0");
  if (exploration_gaussian_sigma < 0) return bad("'exploration_gaussian_sigma' must be >= 0");
  if (pure_exploration_steps < 0) return bad("'pure_exploration_steps' must be >= 0");
  if (!(critic_lr > 0) || !(actor_lr > 0)) return bad("'critic_lr' and 'actor_lr' must be > 0");
  if (!(tau > 0 && tau <= 1)) return bad("'tau' must be in (0, 1]");
  if (!(huber_threshold > 0)) return bad("'huber_threshold' must be > 0");
  if (l2_reg < 0) return bad("'l2_reg' must be >= 0");
  return Status::Ok();
}

double DDPGConfig::NoiseScaleAt(int64_t t) const {
  if (fixed_noise_scale) return *fixed_noise_scale;
  if (!exploration_should_anneal) return 1.0;
  const auto steps =
      static_cast<int64_t>(exploration_fraction * static_cast<double>(replay.schedule_max_timesteps));
  return LinearSchedule{steps, 1.0, exploration_final_scale}.Value(t);
}

std::string DDPGConfig::ToJson() const {
  Json j = CommonJsonWithoutModel(*this);
  j.update(replay.ToJson());
  j.update({
      {"twin_q", twin_q},
      {"policy_delay", policy_delay},
      {"smooth_target_policy", smooth_target_policy},
      {"target_noise", target_noise},
      {"target_noise_clip", target_noise_clip},
      {"use_state_preprocessor", false},
      {"actor_hiddens", actor_hiddens},
      {"actor_hidden_activation", actor_hidden_activation},
      {"critic_hiddens", critic_hiddens},
      {"critic_hidden_activation", critic_hidden_activation},
      {"exploration_should_anneal", exploration_should_anneal},
      {"exploration_fraction", exploration_fraction},
      {"exploration_final_scale", exploration_final_scale},
      {"exploration_noise_type", exploration_noise_type},
      {"exploration_ou_noise_scale", exploration_ou_noise_scale},
      {"exploration_ou_theta", exploration_ou_theta},
      {"exploration_ou_sigma", exploration_ou_sigma},
      {"exploration_gaussian_sigma", exploration_gaussian_sigma},
      {"parameter_noise", false},
      {"pure_exploration_steps", pure_exploration_steps},
      {"critic_lr", critic_lr},
      {"actor_lr", actor_lr},
      {"tau", tau},
      {"use_huber", use_huber},
      {"huber_threshold", huber_threshold},
      {"l2_reg", l2_reg},
      {"grad_norm_clipping", grad_clip ? Json(*grad_clip) : Json(nullptr)},
  });
  return j.dump();
}

}  // namespace ray::rllib
