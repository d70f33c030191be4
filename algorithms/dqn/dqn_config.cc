#include "algorithms/dqn/dqn_config.h"

#include "runtime/rllib/config_setters.h"
#include "runtime/rllib/replay/linear_schedule.h"

namespace ray::rllib {

using Json = nlohmann::json;

ConfigKeys DQNConfig::Keys(DQNConfig* c) {
  ConfigKeys keys = CommonConfigKeys(c);
  keys.insert({
      {"num_atoms", IntKey(&c->num_atoms)},
      {"v_min", DoubleKey(&c->v_min)},
      {"v_max", DoubleKey(&c->v_max)},
      {"noisy", BoolKey(&c->noisy)},
      {"sigma0", DoubleKey(&c->sigma0)},
      {"dueling", BoolKey(&c->dueling)},
      {"double_q", BoolKey(&c->double_q)},
      {"hiddens", HiddensKey(&c->hiddens)},
      {"exploration_fraction", DoubleKey(&c->exploration_fraction)},
      {"exploration_final_eps", DoubleKey(&c->exploration_final_eps)},
      {"soft_q", OnlyValueKey(false, "softmax exploration")},
      {"softmax_temp", DoubleKey(&c->softmax_temp)},
      {"parameter_noise", OnlyValueKey(false, "parameter space noise")},
      {"adam_epsilon", DoubleKey(&c->adam_epsilon)},
      {"grad_norm_clipping", NullableDoubleKey(&c->grad_clip)},
  });
  c->replay.AddKeys(&keys);
  return keys;
}

Result<DQNConfig> DQNConfig::FromJson(const std::string& json) {
  DQNConfig c;
  RAY_RETURN_IF_ERROR(ApplyConfigJson(json, Keys(&c)));
  RAY_RETURN_IF_ERROR(c.Validate());
  return c;
}

Status DQNConfig::Validate() const {
  RAY_RETURN_IF_ERROR(ValidateCommon());
  RAY_RETURN_IF_ERROR(RefuseModelCatalog("DQN", /*custom_too=*/true));
  auto bad = [](const std::string& m) { return Status::InvalidArgument("config key " + m); };
  if (num_atoms < 1) return bad("'num_atoms' must be >= 1");
  if (num_atoms > 1 && !(v_min < v_max)) return bad("'num_atoms' > 1 needs 'v_min' below 'v_max'");
  if (num_atoms > 1000) return bad("'num_atoms' must be <= 1000");
  if (noisy && !(sigma0 > 0)) return bad("'noisy' needs 'sigma0' > 0");
  RAY_RETURN_IF_ERROR(replay.Validate());
  if (exploration_fraction < 0 || exploration_fraction > 1) return bad("'exploration_fraction' must be in [0, 1]");
  if (exploration_final_eps < 0 || exploration_final_eps > 1) return bad("'exploration_final_eps' must be in [0, 1]");
  if (!(adam_epsilon > 0)) return bad("'adam_epsilon' must be > 0");
  return Status::Ok();
}

double DQNConfig::EpsilonAt(int64_t t) const {
  if (fixed_epsilon) return *fixed_epsilon;
  const auto steps = static_cast<int64_t>(exploration_fraction * static_cast<double>(replay.schedule_max_timesteps));
  return LinearSchedule{steps, 1.0, exploration_final_eps}.Value(t);
}

SyncReplayOptions DQNConfig::ReplayOptions() const { return replay.Options(*this); }

std::string DQNConfig::ToJson() const {
  Json j = CommonJson();
  j.erase("grad_clip");
  j.update(replay.ToJson());
  j.update({
      {"num_atoms", num_atoms}, {"v_min", v_min}, {"v_max", v_max}, {"noisy", noisy}, {"sigma0", sigma0},
      {"dueling", dueling}, {"double_q", double_q}, {"hiddens", hiddens},
      {"exploration_fraction", exploration_fraction}, {"exploration_final_eps", exploration_final_eps},
      {"soft_q", false}, {"softmax_temp", softmax_temp}, {"parameter_noise", false},
      {"adam_epsilon", adam_epsilon}, {"grad_norm_clipping", grad_clip ? Json(*grad_clip) : Json(nullptr)},
  });
  return j.dump();
}

}  // namespace ray::rllib
