#pragma once
// PG: vanilla policy gradient (REINFORCE; Williams 1992, "Simple statistical
// gradient-following algorithms for connectionist reinforcement learning") as RLlib
// 0.7's PG: each episode fragment's advantages are its discounted returns with
// last_r = 0 (compute_advantages(batch, 0.0, gamma, use_gae=False): no critic, no
// bootstrap, no standardisation), and the loss is -mean(logp(a) * advantage), one
// Adam step per train batch. Config: COMMON_CONFIG with PG's defaults (num_workers 0,
// lr 0.0004). Torch-free header; not thread-safe.

#include <memory>
#include <string>

#include "runtime/base/status.h"
#include "runtime/rllib/common_config.h"
#include "runtime/rllib/policy/torch_policy.h"

namespace ray::rllib {

struct PGConfig : CommonConfig {
  PGConfig() {
    num_workers = 0;
    lr = 0.0004;
  }
  // Overlays the JSON object onto the defaults; unknown keys and bad values are
  // InvalidArgument naming the key.
  static Result<PGConfig> FromJson(const std::string& json);
  std::string ToJson() const { return CommonJson().dump(); }
  Status Validate() const { return ValidateCommon(); }
};

class PGPolicy : public TorchPolicy {
 public:
  static Result<std::unique_ptr<PGPolicy>> Create(const PolicySpec& spec, const PGConfig& config);
  // Discounted returns from last_r = 0 (next_obs is not used).
  void Postprocess(SampleBatch* traj, const std::vector<float>& next_obs) override;

 protected:
  // policy_loss = total_loss = -mean(logp(actions) * advantages).
  LossOutput Loss(const TorchBatch& batch) override;

 private:
  PGPolicy(const PolicySpec& spec, const PGConfig& config) : TorchPolicy(spec, config), config_(config) {}
  PGConfig config_;
};

}  // namespace ray::rllib
