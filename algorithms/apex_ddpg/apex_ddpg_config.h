#pragma once
// Ape-X DDPG's config: RLlib 0.7's APEX_DDPG_DEFAULT_CONFIG over DDPG's
// (ddpg_config.h), with the Ape-X keys and defaults of apex_keys.h. With
// per_worker_exploration, rollout worker i of N scales its exploration noise by the
// constant 0.4^(1 + i/(N-1) * 7); false: DDPG's schedule. Torch-free.

#include <string>

#include "algorithms/apex/apex_keys.h"
#include "algorithms/ddpg/ddpg_config.h"
#include "runtime/base/status.h"

namespace ray::rllib {

struct ApexDDPGConfig : DDPGConfig {
  ApexDDPGConfig() { ApexKeys::SetDefaults(this, &replay); }
  ApexKeys apex;

  static Result<ApexDDPGConfig> FromJson(const std::string& json);
  std::string ToJson() const;
  Status Validate() const;
  AsyncReplayOptions AsyncReplay() const { return apex.Options(*this, replay); }
  // The config of rollout worker `worker_index` (1..num_workers): its noise scale.
  void ForWorker(int worker_index) {
    if (auto scale = apex.WorkerExploration(worker_index, num_workers)) fixed_noise_scale = scale;
  }
};

}  // namespace ray::rllib
