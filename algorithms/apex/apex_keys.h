#pragma once
// The keys Ape-X adds to a replay-based algorithm (Ape-X DQN, Ape-X DDPG), with
// RLlib 0.7's defaults, and what they mean for AsyncReplayOptimizer:
// per_worker_exploration, worker_side_prioritization, optimizer
// {max_weight_sync_delay, num_replay_buffer_shards, debug}, and Ray 1.x's
// training_intensity (rows trained per row sampled that the samplers wait for;
// null: they never wait). Also RLlib's APEX overrides of the common and replay
// defaults, and ApexConfigOf, an algorithm's config with all of it. Torch-free.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/base/status.h"
#include "runtime/rllib/common_config.h"
#include "runtime/rllib/optimizers/async_replay_optimizer.h"
#include "runtime/rllib/replay/replay_config.h"

namespace ray::rllib {

struct ApexKeys {
  bool per_worker_exploration = true;
  bool worker_side_prioritization = true;
  int64_t max_weight_sync_delay = 400;
  int num_replay_buffer_shards = 4;
  std::optional<double> training_intensity;

  // RLlib's Ape-X defaults: n_step 3, num_workers 32, buffer_size 2,000,000,
  // learning_starts 50,000, train_batch_size 512, sample_batch_size 50,
  // target_network_update_freq 500,000, timesteps_per_iteration 25,000,
  // min_iter_time_s 30 (num_gpus stays 0).
  static void SetDefaults(CommonConfig* common, ReplayConfig* replay);
  // Adds (or replaces: the replay keys refuse the first two) this struct's keys.
  void AddKeys(ConfigKeys* keys);
  // InvalidArgument naming the key.
  Status Validate(const CommonConfig& common, const ReplayConfig& replay) const;
  nlohmann::json ToJson() const;
  AsyncReplayOptions Options(const CommonConfig& common, const ReplayConfig& replay) const;
  // Rollout worker `worker_index`'s constant exploration scale, 0.4^(1 + i/(N-1) * 7)
  // (RLlib's per-worker epsilon or noise scale); nullopt for the learner (index 0)
  // or without per_worker_exploration.
  std::optional<double> WorkerExploration(int worker_index, int num_workers) const;
};

// An algorithm's config with Ape-X's keys and defaults over it. `Base` (DQNConfig,
// DDPGConfig) has a `replay` member and Keys/Validate/ToJson; `kExploration` is the
// Base field a rollout worker's constant exploration goes into (DQN's epsilon,
// DDPG's noise scale); `kName` names the algorithm in messages.
template <typename Base, std::optional<double> Base::*kExploration, const char* kName>
struct ApexConfigOf : Base {
  ApexKeys apex;

  ApexConfigOf() { ApexKeys::SetDefaults(this, &this->replay); }
  static Result<ApexConfigOf> FromJson(const std::string& json) {
    ApexConfigOf c;
    ConfigKeys keys = Base::Keys(&c);
    c.apex.AddKeys(&keys);
    RAY_RETURN_IF_ERROR(ApplyConfigJson(json, keys));
    RAY_RETURN_IF_ERROR(c.Validate());
    return c;
  }
  Status Validate() const {
    RAY_RETURN_IF_ERROR(this->RefuseModelCatalog(kName, /*custom_too=*/true));
    RAY_RETURN_IF_ERROR(Base::Validate());
    return apex.Validate(*this, this->replay);
  }
  std::string ToJson() const {
    nlohmann::json j = nlohmann::json::parse(Base::ToJson());
    j.update(apex.ToJson());
    return j.dump();
  }
  AsyncReplayOptions AsyncReplay() const { return apex.Options(*this, this->replay); }
  // The config of rollout worker `worker_index` (1..num_workers): its exploration.
  void ForWorker(int worker_index) {
    if (auto x = apex.WorkerExploration(worker_index, this->num_workers)) this->*kExploration = x;
  }
};

}  // namespace ray::rllib
