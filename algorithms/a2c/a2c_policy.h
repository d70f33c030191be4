#pragma once
// A2C: synchronous advantage actor-critic (Mnih et al. 2016, "Asynchronous Methods for
// Deep Reinforcement Learning", arXiv:1602.01783, run synchronously as in OpenAI's
// A2C), as RLlib 0.7's A2C (A3C's policy on the SyncSamplesOptimizer):
//   advantages: GAE over each fragment (compute_advantages(batch, last_r, gamma,
//               lambda)); last_r = V(next obs), or 0 when the episode terminated
//   pi_loss  = -sum(logp(a) * advantage)
//   vf_loss  = 0.5 * sum((V(s) - value_target)^2)
//   entropy  = sum(entropy(pi(.|s)))
//   total    = pi_loss + vf_loss_coeff * vf_loss - entropy_coeff * entropy
// (sums over the batch, as RLlib's A3CLoss), global-norm grad_clip, Adam.
// microbatch_size: gradients of microbatches are summed and applied once per train
// batch (RLlib's MicrobatchOptimizer). Torch-free header; not thread-safe.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "runtime/base/status.h"
#include "runtime/rllib/common_config.h"
#include "runtime/rllib/policy/torch_policy.h"

namespace ray::rllib {

struct A2CConfig : CommonConfig {
  A2CConfig() {
    sample_batch_size = 20;
    lr = 0.0001;
    grad_clip = 40.0;
    min_iter_time_s = 10;
  }
  double lambda = 1.0;          // GAE lambda
  double vf_loss_coeff = 0.5;
  double entropy_coeff = 0.01;
  // Accumulate gradients over microbatches of this many rows until the train batch
  // is done, then apply them once. null: one gradient step on the whole batch.
  std::optional<int64_t> microbatch_size;

  static Result<A2CConfig> FromJson(const std::string& json);
  std::string ToJson() const;
  Status Validate() const;
};

class A2CPolicy : public TorchPolicy {
 public:
  static Result<std::unique_ptr<A2CPolicy>> Create(const PolicySpec& spec, const A2CConfig& config);
  // GAE with last_r = V(next_obs), or 0 when next_obs is empty (terminated).
  void Postprocess(SampleBatch* traj, const std::vector<float>& next_obs) override;

 protected:
  LossOutput Loss(const TorchBatch& batch) override;

 private:
  A2CPolicy(const PolicySpec& spec, const A2CConfig& config) : TorchPolicy(spec, config), config_(config) {}
  A2CConfig config_;
};

}  // namespace ray::rllib
