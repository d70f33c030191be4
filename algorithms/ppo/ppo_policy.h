#pragma once
// PPOPolicy: RLlib's PPOTorchPolicy on the default model. TorchPolicy gives it
// actions, weights, gradients and checkpoints; PPO adds its loss (ppo_loss.h), GAE
// postprocessing and a train step of minibatch SGD epochs with the adaptive KL
// coefficient. Torch-free header. Not thread-safe: one thread per policy.

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "algorithms/ppo/ppo_config.h"
#include "runtime/base/status.h"
#include "runtime/rllib/policy/torch_policy.h"

namespace ray::rllib {

class PPOPolicy : public TorchPolicy {
 public:
  // InvalidArgument on a bad spec or a config that fails Validate().
  static Result<std::unique_ptr<PPOPolicy>> Create(const PolicySpec& spec, const PPOConfig& config);

  // RLlib's postprocess_ppo_gae for one episode fragment: last_r = 0 if the last row
  // terminated (next_obs empty), else V(next_obs).
  void Postprocess(SampleBatch* traj, const std::vector<float>& next_obs) override;

  // One PPO train step on a postprocessed batch: standardise advantages over the
  // whole batch, then num_sgd_iter epochs of shuffled minibatches of
  // sgd_minibatch_size (max(1, N / minibatch) per epoch; with N < minibatch the whole
  // batch), Adam at config.LrAt(timestep), optional global-norm grad_clip; then
  // update_kl with the mean KL. Stats: RLlib's PPO stats averaged over the updates,
  // cur_kl_coeff being the coefficient the step used, plus num_sgd_steps.
  LearnerStats LearnOnBatch(const SampleBatch& batch) override;

  double kl_coeff() const { return kl_coeff_; }
  const PPOConfig& config() const { return config_; }

 protected:
  // The PPO loss on the batch as given (ComputeGradients: advantages as they are).
  LossOutput Loss(const TorchBatch& batch) override;
  std::map<std::string, double> ExtraState() const override { return {{"kl_coeff", kl_coeff_}}; }
  void SetExtraState(const std::map<std::string, double>& s) override { kl_coeff_ = s.at("kl_coeff"); }

 private:
  PPOPolicy(const PolicySpec& spec, const PPOConfig& config);
  PPOConfig config_;
  double kl_coeff_;
};

}  // namespace ray::rllib
