#include "runtime/rllib/replay/replay_config.h"

#include "runtime/rllib/config_setters.h"

namespace ray::rllib {

using Json = nlohmann::json;

void ReplayConfig::AddKeys(ConfigKeys* keys) {
  keys->insert({
      {"buffer_size", Int64Key(&buffer_size)},
      {"prioritized_replay", BoolKey(&prioritized_replay)},
      {"prioritized_replay_alpha", DoubleKey(&prioritized_replay_alpha)},
      {"prioritized_replay_beta", DoubleKey(&prioritized_replay_beta)},
      {"beta_annealing_fraction", DoubleKey(&beta_annealing_fraction)},
      {"final_prioritized_replay_beta", DoubleKey(&final_prioritized_replay_beta)},
      {"prioritized_replay_eps", DoubleKey(&prioritized_replay_eps)},
      {"schedule_max_timesteps", Int64Key(&schedule_max_timesteps)},
      {"learning_starts", Int64Key(&learning_starts)},
      {"target_network_update_freq", Int64Key(&target_network_update_freq)},
      {"n_step", IntKey(&n_step)},
      {"compress_observations", OnlyValueKey(false, "observations are stored uncompressed")},
      {"per_worker_exploration", OnlyValueKey(false, "per-worker exploration (Ape-X)")},
      {"worker_side_prioritization", OnlyValueKey(false, "priorities computed on the workers")},
  });
}

Status ReplayConfig::Validate() const {
  auto bad = [](const std::string& m) { return Status::InvalidArgument("config key " + m); };
  if (buffer_size <= 0) return bad("'buffer_size' must be > 0");
  if (prioritized_replay_alpha < 0) return bad("'prioritized_replay_alpha' must be >= 0");
  if (!(prioritized_replay_beta > 0)) return bad("'prioritized_replay_beta' must be > 0");
  if (!(final_prioritized_replay_beta > 0)) return bad("'final_prioritized_replay_beta' must be > 0");
  if (beta_annealing_fraction < 0 || beta_annealing_fraction > 1) return bad("'beta_annealing_fraction' must be in [0, 1]");
  if (!(prioritized_replay_eps > 0)) return bad("'prioritized_replay_eps' must be > 0");
  if (schedule_max_timesteps < 0) return bad("'schedule_max_timesteps' must be >= 0");
  if (learning_starts < 0) return bad("'learning_starts' must be >= 0");
  if (target_network_update_freq < 0) return bad("'target_network_update_freq' must be >= 0");
  if (n_step < 1) return bad("'n_step' must be >= 1");
  return Status::Ok();
}

Json ReplayConfig::ToJson() const {
  return {{"buffer_size", buffer_size},
          {"prioritized_replay", prioritized_replay},
          {"prioritized_replay_alpha", prioritized_replay_alpha},
          {"prioritized_replay_beta", prioritized_replay_beta},
          {"beta_annealing_fraction", beta_annealing_fraction},
          {"final_prioritized_replay_beta", final_prioritized_replay_beta},
          {"prioritized_replay_eps", prioritized_replay_eps},
          {"schedule_max_timesteps", schedule_max_timesteps},
          {"learning_starts", learning_starts},
          {"target_network_update_freq", target_network_update_freq},
          {"n_step", n_step},
          {"compress_observations", false},
          {"per_worker_exploration", false},
          {"worker_side_prioritization", false}};
}

SyncReplayOptions ReplayConfig::Options(const CommonConfig& common) const {
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
  o.train_batch_size = common.train_batch_size;
  o.sample_batch_size = common.sample_batch_size;
  o.target_network_update_freq = target_network_update_freq;
  o.seed = common.seed ? static_cast<uint64_t>(*common.seed) : 0x5eed;
  return o;
}

void RefuseModelKeys(ConfigKeys* keys, const std::string& algo, const std::string& instead) {
  for (const char* key : {"lr", "lr_schedule", "vf_share_layers"}) {
    (*keys)[key] = [algo, instead](const Json&, const std::string& k) {
      return Status::InvalidArgument("config key '" + k + "' is not used by " + algo + "; set " + instead);
    };
  }
  (*keys)["model"] = [algo, instead](const Json& v, const std::string& k) {
    if (v.is_object() && v.empty()) return Status::Ok();
    return Status::InvalidArgument("config key '" + k + "' is not used by " + algo +
                                   " (no state preprocessor); only {} is accepted; set " + instead);
  };
}

Json CommonJsonWithoutModel(const CommonConfig& c) {
  Json j = c.CommonJson();
  for (const char* key : {"lr", "lr_schedule", "vf_share_layers", "grad_clip"}) j.erase(key);
  j["model"] = Json::object();
  return j;
}

}  // namespace ray::rllib
