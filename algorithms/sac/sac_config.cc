#include "algorithms/sac/sac_config.h"

#include "runtime/rllib/config_setters.h"

namespace ray::rllib {
namespace {

using Json = nlohmann::json;

ConfigSetter NetKeys(SACNetConfig* net) {
  return NestedKey({{"hidden_activation", StringKey(&net->hidden_activation)},
                    {"hidden_layer_sizes", HiddensKey(&net->hidden_layer_sizes)}});
}

ConfigSetter TargetEntropy(std::optional<double>* out) {
  return [out](const Json& v, const std::string& key) {
    if (v == "auto") {
      out->reset();
    } else if (v.is_number()) {
      *out = v.get<double>();
    } else {
      return Status::InvalidArgument("config key '" + key + "': expected \"auto\" or a number, got " + v.dump());
    }
    return Status::Ok();
  };
}

Json NetJson(const SACNetConfig& n) {
  return {{"hidden_activation", n.hidden_activation}, {"hidden_layer_sizes", n.hidden_layer_sizes}};
}

}  // namespace

Result<SACConfig> SACConfig::FromJson(const std::string& json) {
  SACConfig c;
  ConfigKeys keys = CommonConfigKeys(&c);
  RefuseModelKeys(&keys, "SAC", "Q_model, policy_model and optimization");
  c.replay.AddKeys(&keys);
  keys.insert({
      {"twin_q", BoolKey(&c.twin_q)},
      {"use_state_preprocessor", OnlyValueKey(false, "state preprocessors")},
      {"policy", OnlyValueKey("GaussianLatentSpacePolicy", "other SAC policies")},
      {"Q_model", NetKeys(&c.Q_model)},
      {"policy_model", NetKeys(&c.policy_model)},
      {"normalize_actions", OnlyValueKey(true, "actions outside [-1, 1] squashing")},
      {"tau", DoubleKey(&c.tau)},
      {"target_entropy", TargetEntropy(&c.target_entropy)},
      {"initial_alpha", DoubleKey(&c.initial_alpha)},
      {"exploration_enabled", BoolKey(&c.exploration_enabled)},
      {"no_done_at_end", BoolKey(&c.no_done_at_end)},
      {"optimization", NestedKey({{"actor_learning_rate", DoubleKey(&c.actor_learning_rate)},
                                  {"critic_learning_rate", DoubleKey(&c.critic_learning_rate)},
                                  {"entropy_learning_rate", DoubleKey(&c.entropy_learning_rate)}})},
      {"grad_norm_clipping", NullableDoubleKey(&c.grad_clip)},
  });
  RAY_RETURN_IF_ERROR(ApplyConfigJson(json, keys));
  RAY_RETURN_IF_ERROR(c.Validate());
  return c;
}

Status SACConfig::Validate() const {
  RAY_RETURN_IF_ERROR(ValidateCommon());
  RAY_RETURN_IF_ERROR(RefuseModelCatalog("SAC", /*custom_too=*/true));
  RAY_RETURN_IF_ERROR(replay.Validate());
  auto bad = [](const std::string& m) { return Status::InvalidArgument("config key " + m); };
  for (const auto& [name, net] : {std::pair{"Q_model", &Q_model}, std::pair{"policy_model", &policy_model}}) {
    const std::string& a = net->hidden_activation;
    if (a != "relu" && a != "tanh" && a != "linear") {
      return bad(std::string("'") + name + ".hidden_activation' = \"" + a + "\" is not relu, tanh or linear");
    }
  }
  if (!(tau > 0 && tau <= 1)) return bad("'tau' must be in (0, 1]");
  if (!(initial_alpha > 0)) return bad("'initial_alpha' must be > 0");
  if (!(actor_learning_rate > 0) || !(critic_learning_rate > 0) || !(entropy_learning_rate > 0)) {
    return bad("'optimization' learning rates must be > 0");
  }
  return Status::Ok();
}

std::string SACConfig::ToJson() const {
  Json j = CommonJsonWithoutModel(*this);
  j.update(replay.ToJson());
  j.update({
      {"twin_q", twin_q},
      {"use_state_preprocessor", false},
      {"policy", "GaussianLatentSpacePolicy"},
      {"Q_model", NetJson(Q_model)},
      {"policy_model", NetJson(policy_model)},
      {"normalize_actions", true},
      {"tau", tau},
      {"target_entropy", target_entropy ? Json(*target_entropy) : Json("auto")},
      {"initial_alpha", initial_alpha},
      {"exploration_enabled", exploration_enabled},
      {"no_done_at_end", no_done_at_end},
      {"optimization",
       {{"actor_learning_rate", actor_learning_rate},
        {"critic_learning_rate", critic_learning_rate},
        {"entropy_learning_rate", entropy_learning_rate}}},
      {"grad_norm_clipping", grad_clip ? Json(*grad_clip) : Json(nullptr)},
  });
  return j.dump();
}

}  // namespace ray::rllib
