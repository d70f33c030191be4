#include "algorithms/apex/apex_config.h"

#include <cmath>

#include "runtime/rllib/config_setters.h"

namespace ray::rllib {

using Json = nlohmann::json;

ApexConfig::ApexConfig() {
  replay.n_step = 3;
  num_workers = 32;
  replay.buffer_size = 2000000;
  replay.learning_starts = 50000;
  train_batch_size = 512;
  sample_batch_size = 50;
  replay.target_network_update_freq = 500000;
  timesteps_per_iteration = 25000;
  min_iter_time_s = 30;
}

Result<ApexConfig> ApexConfig::FromJson(const std::string& json) {
  ApexConfig c;
  ConfigKeys keys = DQNConfig::Keys(&c);
  keys["per_worker_exploration"] = BoolKey(&c.per_worker_exploration);
  keys["worker_side_prioritization"] = BoolKey(&c.worker_side_prioritization);
  keys["training_intensity"] = NullableDoubleKey(&c.training_intensity);
  keys["optimizer"] = NestedKey({{"max_weight_sync_delay", Int64Key(&c.max_weight_sync_delay)},
                                 {"num_replay_buffer_shards", IntKey(&c.num_replay_buffer_shards)},
                                 {"debug", OnlyValueKey(false, "the optimizer's debug printing")}});
  RAY_RETURN_IF_ERROR(ApplyConfigJson(json, keys));
  RAY_RETURN_IF_ERROR(c.Validate());
  return c;
}

Status ApexConfig::Validate() const {
  RAY_RETURN_IF_ERROR(RefuseModelCatalog("APEX", /*custom_too=*/true));
  RAY_RETURN_IF_ERROR(DQNConfig::Validate());
  auto bad = [](const std::string& m) { return Status::InvalidArgument("config key " + m); };
  if (num_workers < 1) return bad("'num_workers' must be >= 1 (Ape-X samples on remote workers only)");
  if (per_worker_exploration && num_workers < 2) {
    return bad("'per_worker_exploration' needs 'num_workers' >= 2 (set it to false for one worker)");
  }
  if (!replay.prioritized_replay) return bad("'prioritized_replay': Ape-X's replay shards always prioritize");
  if (replay.final_prioritized_replay_beta != replay.prioritized_replay_beta) {
    return bad("'final_prioritized_replay_beta': Ape-X's replay shards keep 'prioritized_replay_beta' "
               "(beta is not annealed)");
  }
  if (training_intensity && !(*training_intensity > 0)) return bad("'training_intensity' must be > 0 or null");
  if (max_weight_sync_delay < 1) return bad("'optimizer.max_weight_sync_delay' must be >= 1");
  if (num_replay_buffer_shards < 1) return bad("'optimizer.num_replay_buffer_shards' must be >= 1");
  if (replay.learning_starts > replay.buffer_size) {
    return bad("'learning_starts' must be <= 'buffer_size' (the shards could never replay)");
  }
  if (replay.buffer_size < num_replay_buffer_shards) {
    return bad("'buffer_size' must hold a row per replay shard");
  }
  return Status::Ok();
}

std::string ApexConfig::ToJson() const {
  Json j = Json::parse(DQNConfig::ToJson());
  j["per_worker_exploration"] = per_worker_exploration;
  j["worker_side_prioritization"] = worker_side_prioritization;
  j["training_intensity"] = training_intensity ? Json(*training_intensity) : Json(nullptr);
  j["optimizer"] = {{"max_weight_sync_delay", max_weight_sync_delay},
                    {"num_replay_buffer_shards", num_replay_buffer_shards},
                    {"debug", false}};
  return j.dump();
}

AsyncReplayOptions ApexConfig::AsyncReplay() const {
  AsyncReplayOptions o;
  o.num_replay_buffer_shards = num_replay_buffer_shards;
  o.max_weight_sync_delay = max_weight_sync_delay;
  o.buffer_size = replay.buffer_size;
  o.learning_starts = replay.learning_starts;
  o.train_batch_size = train_batch_size;
  o.prioritized_replay_alpha = replay.prioritized_replay_alpha;
  o.prioritized_replay_beta = replay.prioritized_replay_beta;
  o.prioritized_replay_eps = replay.prioritized_replay_eps;
  o.target_network_update_freq = replay.target_network_update_freq;
  o.worker_side_prioritization = worker_side_prioritization;
  o.training_intensity = training_intensity;
  o.seed = seed ? static_cast<uint64_t>(*seed) : 0;
  return o;
}

void ApexConfig::ForWorker(int worker_index) {
  if (!per_worker_exploration || worker_index == 0) return;
  fixed_epsilon = std::pow(0.4, 1.0 + static_cast<double>(worker_index) / (num_workers - 1) * 7.0);
}

}  // namespace ray::rllib
