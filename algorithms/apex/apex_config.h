#pragma once
// Ape-X DQN's config: RLlib 0.7's APEX_DEFAULT_CONFIG over DQN's (dqn_config.h), the
// Ape-X keys and defaults of apex_keys.h. With per_worker_exploration, rollout worker
// i of N explores with the constant epsilon 0.4^(1 + i/(N-1) * 7); false: DQN's
// annealed epsilon. Torch-free.

#include <string>

#include "algorithms/apex/apex_keys.h"
#include "algorithms/dqn/dqn_config.h"
#include "runtime/base/status.h"

namespace ray::rllib {

struct ApexConfig : DQNConfig {
  ApexConfig() { ApexKeys::SetDefaults(this, &replay); }
  ApexKeys apex;

  static Result<ApexConfig> FromJson(const std::string& json);
  std::string ToJson() const;
  Status Validate() const;
  AsyncReplayOptions AsyncReplay() const { return apex.Options(*this, replay); }
  // The config of rollout worker `worker_index` (1..num_workers): its epsilon.
  void ForWorker(int worker_index) {
    if (auto eps = apex.WorkerExploration(worker_index, num_workers)) fixed_epsilon = eps;
  }
};

}  // namespace ray::rllib
