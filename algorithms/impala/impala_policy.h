#pragma once
// IMPALA's policy: RLlib 0.7's VTraceTFPolicy for the default model, on libtorch.
// Workers only record each step's next observation (Postprocess fills `new_obs`:
// the next row's observation, or the one after the fragment, to bootstrap from). The
// learner computes V-trace (vtrace.h) with its current network at learn time:
//   log_rho   = logp_pi(a) - behaviour action_logp
//   discount  = gamma, 0 after a terminal step
//   sequences = runs of rows where each row's new_obs is the next row's obs in the
//               same episode, not ended
// and minimises, over sums on the batch as RLlib's VTraceLoss,
//   pi_loss = -sum(logp(a) * pg_advantages)
//   vf_loss = 0.5 * sum((V(s) - vs)^2)
//   entropy = sum(entropy(pi(.|s)))
//   total   = pi_loss + vf_loss_coeff * vf_loss - entropy_coeff * entropy
// with global-norm grad_clip and Adam. Torch-free header; not thread-safe.

#include <memory>
#include <stdexcept>
#include <vector>

#include "algorithms/impala/impala_config.h"
#include "runtime/rllib/policy/torch_policy.h"

namespace ray::rllib {

class IMPALAPolicy : public TorchPolicy {
 public:
  static Result<std::unique_ptr<IMPALAPolicy>> Create(const PolicySpec& spec,
                                                      const IMPALAConfig& config);
  // Fills new_obs; the targets are computed by the learner.
  void Postprocess(SampleBatch* traj, const std::vector<float>& next_obs) override;
  LearnerStats LearnOnBatch(const SampleBatch& batch) override;
  Gradients ComputeGradients(const SampleBatch& batch) override;
  // The batch with advantages = V-trace's pg_advantages and value_targets = vs,
  // computed with the current weights. Needs new_obs (Postprocess).
  SampleBatch WithVTrace(const SampleBatch& batch);

 protected:
  LossOutput Loss(const TorchBatch& batch) override;
  IMPALAPolicy(const PolicySpec& spec, const IMPALAConfig& config)
      : TorchPolicy(spec, config), config_(config) {
    if (StateSize() > 0) {
      throw std::invalid_argument("custom model '" + config.model.custom_model +
                                  "' keeps a recurrent state: IMPALA and APPO train stateless models");
    }
    if (config.opt_type == "rmsprop") UseRMSProp(config.decay, config.momentum, config.epsilon);
  }

 private:
  IMPALAConfig config_;
};

// Fills traj->new_obs: row t's next observation (row t+1's obs; after the last row,
// next_obs, or the row's own obs when next_obs is empty because the episode ended).
void FillNextObservations(SampleBatch* traj, const std::vector<float>& next_obs);

}  // namespace ray::rllib
