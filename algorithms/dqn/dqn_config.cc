#include "algorithms/dqn/dqn_config.h"

#include "runtime/rllib/replay/linear_schedule.h"

namespace ray::rllib {
namespace {

using Json = nlohmann::json;

// A key whose only accepted value is `off` (RLlib's default): anything else is
// refused as not supported yet.
ConfigSetter OnlyValue(Json off, std::string why) {
  return [off, why](const Json& v, const std::string& key) {
    if (v != off) {
      return Status::InvalidArgument("config key '" + key + "' = " + v.dump() + " is not supported yet (" +
                                     why + "); only " + off.dump() + " is");
    }
    return Status::Ok();
  };
}

ConfigSetter Hiddens(std::vector<int>* out) {
  return [out](const Json& v, const std::string& key) {
    if (!v.is_array()) return Status::InvalidArgument("config key '" + key + "': expected a list of integers");
    std::vector<int> sizes;
    for (const Json& e : v) {
      if (!e.is_number_integer() || e.get<int>() <= 0) {
        return Status::InvalidArgument("config key '" + key + "': expected a list of positive integers");
      }
      sizes.push_back(e.get<int>());
    }
    *out = std::move(sizes);
    return Status::Ok();
  };
}

}  // namespace

Result<DQNConfig> DQNConfig::FromJson(const std::string& json) {
  DQNConfig c;
  ConfigKeys keys = CommonConfigKeys(&c);
  keys.insert({
      {"num_atoms", IntKey(&c.num_atoms)},
      {"v_min", DoubleKey(&c.v_min)},
      {"v_max", DoubleKey(&c.v_max)},
      {"noisy", OnlyValue(false, "noisy networks")},
      {"sigma0", DoubleKey(&c.sigma0)},
      {"dueling", BoolKey(&c.dueling)},
      {"double_q", BoolKey(&c.double_q)},
      {"hiddens", Hiddens(&c.hiddens)},
      {"n_step", IntKey(&c.n_step)},
      {"schedule_max_timesteps", Int64Key(&c.schedule_max_timesteps)},
      {"exploration_fraction", DoubleKey(&c.exploration_fraction)},
      {"exploration_final_eps", DoubleKey(&c.exploration_final_eps)},
      {"target_network_update_freq", Int64Key(&c.target_network_update_freq)},
      {"soft_q", OnlyValue(false, "softmax exploration")},
      {"softmax_temp", DoubleKey(&c.softmax_temp)},
      {"parameter_noise", OnlyValue(false, "parameter space noise")},
      {"buffer_size", Int64Key(&c.buffer_size)},
      {"prioritized_replay", BoolKey(&c.prioritized_replay)},
      {"prioritized_replay_alpha", DoubleKey(&c.prioritized_replay_alpha)},
      {"prioritized_replay_beta", DoubleKey(&c.prioritized_replay_beta)},
      {"beta_annealing_fraction", DoubleKey(&c.beta_annealing_fraction)},
      {"final_prioritized_replay_beta", DoubleKey(&c.final_prioritized_replay_beta)},
      {"prioritized_replay_eps", DoubleKey(&c.prioritized_replay_eps)},
      {"compress_observations", OnlyValue(false, "observations are stored uncompressed")},
      {"adam_epsilon", DoubleKey(&c.adam_epsilon)},
      {"grad_norm_clipping", NullableDoubleKey(&c.grad_clip)},
      {"learning_starts", Int64Key(&c.learning_starts)},
      {"per_worker_exploration", OnlyValue(false, "per-worker epsilons (Ape-X)")},
      {"worker_side_prioritization", OnlyValue(false, "priorities computed on the workers")},
  });
  RAY_RETURN_IF_ERROR(ApplyConfigJson(json, keys));
  RAY_RETURN_IF_ERROR(c.Validate());
  return c;
}

Status DQNConfig::Validate() const {
  RAY_RETURN_IF_ERROR(ValidateCommon());
  auto bad = [](const std::string& m) { return Status::InvalidArgument("config key " + m); };
  if (num_atoms < 1) return bad("'num_atoms' must be >= 1");
  if (num_atoms > 1) {
    return bad("'num_atoms' = " + std::to_string(num_atoms) +
               " (distributional DQN) is not supported yet; only 1 is");
  }
  if (n_step < 1) return bad("'n_step' must be >= 1");
  if (schedule_max_timesteps < 0) return bad("'schedule_max_timesteps' must be >= 0");
  if (exploration_fraction < 0 || exploration_fraction > 1) return bad("'exploration_fraction' must be in [0, 1]");
  if (exploration_final_eps < 0 || exploration_final_eps > 1) return bad("'exploration_final_eps' must be in [0, 1]");
  if (target_network_update_freq < 0) return bad("'target_network_update_freq' must be >= 0");
  if (buffer_size <= 0) return bad("'buffer_size' must be > 0");
  if (prioritized_replay_alpha < 0) return bad("'prioritized_replay_alpha' must be >= 0");
  if (!(prioritized_replay_beta > 0)) return bad("'prioritized_replay_beta' must be > 0");
  if (!(final_prioritized_replay_beta > 0)) return bad("'final_prioritized_replay_beta' must be > 0");
  if (beta_annealing_fraction < 0 || beta_annealing_fraction > 1) return bad("'beta_annealing_fraction' must be in [0, 1]");
  if (!(prioritized_replay_eps > 0)) return bad("'prioritized_replay_eps' must be > 0");
  if (!(adam_epsilon > 0)) return bad("'adam_epsilon' must be > 0");
  if (learning_starts < 0) return bad("'learning_starts' must be >= 0");
  return Status::Ok();
}

double DQNConfig::EpsilonAt(int64_t t) const {
  const auto steps = static_cast<int64_t>(exploration_fraction * static_cast<double>(schedule_max_timesteps));
  return LinearSchedule{steps, 1.0, exploration_final_eps}.Value(t);
}

SyncReplayOptions DQNConfig::ReplayOptions() const {
  SyncReplayOptions o;
  o.learning_starts = learning_starts;
  o.buffer_size = buffer_size;
  o.prioritized_replay = prioritized_replay;
  o.prioritized_replay_alpha = prioritized_replay_alpha;
  o.prioritized_replay_beta = prioritized_replay_beta;
  o.final_prioritized_replay_beta = final_prioritized_replay_beta;
  o.beta_annealing_timesteps =
      static_cast<int64_t>(beta_annealing_fraction * static_cast<double>(schedule_max_timesteps));
  o.prioritized_replay_eps = prioritized_replay_eps;
  o.train_batch_size = train_batch_size;
  o.sample_batch_size = sample_batch_size;
  o.target_network_update_freq = target_network_update_freq;
  o.seed = seed ? static_cast<uint64_t>(*seed) : 0x5eed;
  return o;
}

std::string DQNConfig::ToJson() const {
  Json j = CommonJson();
  j.erase("grad_clip");
  j.update({
      {"num_atoms", num_atoms}, {"v_min", v_min}, {"v_max", v_max}, {"noisy", false}, {"sigma0", sigma0},
      {"dueling", dueling}, {"double_q", double_q}, {"hiddens", hiddens}, {"n_step", n_step},
      {"schedule_max_timesteps", schedule_max_timesteps}, {"exploration_fraction", exploration_fraction},
      {"exploration_final_eps", exploration_final_eps},
      {"target_network_update_freq", target_network_update_freq}, {"soft_q", false},
      {"softmax_temp", softmax_temp}, {"parameter_noise", false}, {"buffer_size", buffer_size},
      {"prioritized_replay", prioritized_replay}, {"prioritized_replay_alpha", prioritized_replay_alpha},
      {"prioritized_replay_beta", prioritized_replay_beta}, {"beta_annealing_fraction", beta_annealing_fraction},
      {"final_prioritized_replay_beta", final_prioritized_replay_beta},
      {"prioritized_replay_eps", prioritized_replay_eps}, {"compress_observations", false},
      {"adam_epsilon", adam_epsilon},
      {"grad_norm_clipping", grad_clip ? Json(*grad_clip) : Json(nullptr)},
      {"learning_starts", learning_starts}, {"per_worker_exploration", false},
      {"worker_side_prioritization", false},
  });
  return j.dump();
}

}  // namespace ray::rllib
