#pragma once
// APPO: asynchronous PPO on IMPALA's pipeline, as RLlib 0.7's APPO (appo_policy.py):
// IMPALA's config, optimizer and learner thread, with PPO's clipped surrogate loss.
//   vtrace false (RLlib's default): advantages by GAE on the workers (use_gae, lambda;
//     compute_advantages with last_r = V(next obs), 0 after a terminal step), and
//       ratio   = exp(logp_pi(a) - behaviour action_logp)
//       pi_loss = -mean(min(A * ratio, A * clip(ratio, 1 - clip_param, 1 + clip_param)))
//       vf_loss = 0.5 * mean((V(s) - value_target)^2)
//   vtrace true: the same surrogate with A = V-trace's pg_advantages and
//     value_target = vs, computed by the learner (impala_policy.h).
//   total = pi_loss + vf_loss_coeff * vf_loss - entropy_coeff * mean(entropy)
// with global-norm grad_clip and Adam. Torch-free header; not thread-safe.

#include <memory>
#include <string>
#include <vector>

#include "algorithms/impala/impala_config.h"
#include "algorithms/impala/impala_policy.h"

namespace ray::rllib {

struct APPOConfig : IMPALAConfig {
  APPOConfig() {
    vtrace = false;
    replay_buffer_num_slots = 100;
  }
  bool use_gae = true;
  double lambda = 1.0;
  double clip_param = 0.4;

  static Result<APPOConfig> FromJson(const std::string& json);
  std::string ToJson() const;
  Status Validate() const;
};

class APPOPolicy : public IMPALAPolicy {
 public:
  static Result<std::unique_ptr<APPOPolicy>> Create(const PolicySpec& spec,
                                                    const APPOConfig& config);
  // vtrace: next observations (IMPALA's); else GAE.
  void Postprocess(SampleBatch* traj, const std::vector<float>& next_obs) override;
  LearnerStats LearnOnBatch(const SampleBatch& batch) override;
  Gradients ComputeGradients(const SampleBatch& batch) override;

 protected:
  LossOutput Loss(const TorchBatch& batch) override;

 private:
  APPOPolicy(const PolicySpec& spec, const APPOConfig& config)
      : IMPALAPolicy(spec, config), config_(config) {}
  APPOConfig config_;
};

}  // namespace ray::rllib
