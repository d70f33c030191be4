#include "algorithms/apex/apex_keys.h"

#include <cmath>

#include "runtime/rllib/config_setters.h"

namespace ray::rllib {

void ApexKeys::SetDefaults(CommonConfig* common, ReplayConfig* replay) {
  replay->n_step = 3;
  common->num_workers = 32;
  replay->buffer_size = 2000000;
  replay->learning_starts = 50000;
  common->train_batch_size = 512;
  common->sample_batch_size = 50;
  replay->target_network_update_freq = 500000;
  common->timesteps_per_iteration = 25000;
  common->min_iter_time_s = 30;
}

void ApexKeys::AddKeys(ConfigKeys* keys) {
  (*keys)["per_worker_exploration"] = BoolKey(&per_worker_exploration);
  (*keys)["worker_side_prioritization"] = BoolKey(&worker_side_prioritization);
  (*keys)["training_intensity"] = NullableDoubleKey(&training_intensity);
  (*keys)["optimizer"] = NestedKey({{"max_weight_sync_delay", Int64Key(&max_weight_sync_delay)},
                                    {"num_replay_buffer_shards", IntKey(&num_replay_buffer_shards)},
                                    {"debug", OnlyValueKey(false, "the optimizer's debug printing")}});
}

Status ApexKeys::Validate(const CommonConfig& common, const ReplayConfig& replay) const {
  auto bad = [](const std::string& m) { return Status::InvalidArgument("config key " + m); };
  if (common.num_workers < 1) return bad("'num_workers' must be >= 1 (Ape-X samples on remote workers only)");
  if (per_worker_exploration && common.num_workers < 2) {
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

nlohmann::json ApexKeys::ToJson() const {
  return {{"per_worker_exploration", per_worker_exploration},
          {"worker_side_prioritization", worker_side_prioritization},
          {"training_intensity", training_intensity ? nlohmann::json(*training_intensity) : nlohmann::json()},
          {"optimizer",
           {{"max_weight_sync_delay", max_weight_sync_delay},
            {"num_replay_buffer_shards", num_replay_buffer_shards},
            {"debug", false}}}};
}

AsyncReplayOptions ApexKeys::Options(const CommonConfig& common, const ReplayConfig& replay) const {
  AsyncReplayOptions o;
  o.num_replay_buffer_shards = num_replay_buffer_shards;
  o.max_weight_sync_delay = max_weight_sync_delay;
  o.buffer_size = replay.buffer_size;
  o.learning_starts = replay.learning_starts;
  o.train_batch_size = common.train_batch_size;
  o.prioritized_replay_alpha = replay.prioritized_replay_alpha;
  o.prioritized_replay_beta = replay.prioritized_replay_beta;
  o.prioritized_replay_eps = replay.prioritized_replay_eps;
  o.target_network_update_freq = replay.target_network_update_freq;
  o.worker_side_prioritization = worker_side_prioritization;
  o.training_intensity = training_intensity;
  o.seed = common.seed ? static_cast<uint64_t>(*common.seed) : 0;
  return o;
}

std::optional<double> ApexKeys::WorkerExploration(int worker_index, int num_workers) const {
  if (!per_worker_exploration || worker_index == 0 || num_workers < 2) return std::nullopt;
  return std::pow(0.4, 1.0 + static_cast<double>(worker_index) / (num_workers - 1) * 7.0);
}

}  // namespace ray::rllib
