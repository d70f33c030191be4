#pragma once
// TorchPolicy: what RLlib's build_torch_policy gives every torch policy, for the
// built-in models (model.h: the fully connected net, or its LSTM wrapper with
// use_lstm; Categorical/DiagGaussian distributions): batched actions
// and values, flat weights, gradients of the algorithm's loss, one Adam optimiser at
// the config's lr (and lr_schedule, read at the global timestep), global-norm
// grad_clip, and checkpoints of model, optimiser and schedule state.
//
// An algorithm derives from it and supplies Loss() (and Postprocess()); PPO also
// overrides LearnOnBatch with its minibatch epochs. The header is torch-free (pimpl);
// subclasses reach the model and optimiser through torch_policy_impl.h.
//
// Seeding: config.seed seeds torch's global RNG (action sampling, initial weights)
// and the policy's own shuffling RNG. Not thread-safe: one thread per policy.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <ray/rllib/policy.h>

#include "runtime/base/status.h"
#include "runtime/rllib/common_config.h"

namespace ray::rllib {

// The batch as tensors and the loss's outputs (torch types, torch_policy_impl.h).
struct TorchBatch;
struct LossOutput;

// Sets torch's intra-op thread count for the whole process (torch::set_num_threads).
// One thread per sampler/learner process is best on small machines.
void SetTorchNumThreads(int num_threads);

class TorchPolicy : public Policy {
 public:
  ~TorchPolicy() override;
  TorchPolicy(const TorchPolicy&) = delete;
  TorchPolicy& operator=(const TorchPolicy&) = delete;

  const PolicySpec& spec() const override;
  // Runs under torch::NoGradGuard; vf_preds always filled (the model has a value head).
  // A recurrent policy (model.use_lstm) refuses ComputeActions: it needs the state.
  ActionBatch ComputeActions(const std::vector<float>& obs, bool explore = true) override;
  int StateSize() const override;
  ActionBatch ComputeActionsWithState(const std::vector<float>& obs,
                                      const std::vector<float>& state_in, bool explore) override;
  // V(obs) per row; a stateless policy only.
  std::vector<float> ComputeValues(const std::vector<float>& obs);
  // V of the observation after a trajectory fragment's last row (to bootstrap from):
  // V(next_obs), for a recurrent policy in the state the last row leads to.
  float BootstrapValue(const SampleBatch& traj, const std::vector<float>& next_obs);

  // One Adam step on the whole batch: ComputeGradients + ApplyGradients without
  // flattening; env steps trained grow by the batch's rows.
  LearnerStats LearnOnBatch(const SampleBatch& batch) override;
  // The gradient of Loss() on the batch, grad_clip applied, and its stats.
  Gradients ComputeGradients(const SampleBatch& batch) override;
  void ApplyGradients(const std::vector<float>& grads) override;

  std::vector<float> GetWeights() const override;
  void SetWeights(const std::vector<float>& weights) override;
  int64_t NumWeights() const;
  // "name:d0xd1,..." for every parameter; equal layouts mean compatible weights.
  std::string WeightsLayout() const;

  // Model, optimiser, timestep, ExtraState() and layout in one torch archive.
  // RestoreState throws std::invalid_argument if the file's layout differs,
  // std::runtime_error if it cannot be read.
  void SaveState(const std::string& path) const override;
  void RestoreState(const std::string& path) override;

  // RLlib's on_global_var_update: the env steps sampled so far, which drives lr_schedule.
  void OnGlobalVarUpdate(int64_t timestep) override { SetTimestep(timestep); }
  void SetTimestep(int64_t timestep);
  int64_t timestep() const;
  const CommonConfig& common_config() const;

 protected:
  // InvalidArgument (as std::invalid_argument) on a bad spec or activation.
  TorchPolicy(const PolicySpec& spec, const CommonConfig& config);

  // The algorithm's loss on a (mini)batch, with grad; stats are scalars.
  virtual LossOutput Loss(const TorchBatch& batch) = 0;
  // State beyond weights and optimiser that a checkpoint must keep (PPO: kl_coeff).
  virtual std::map<std::string, double> ExtraState() const { return {}; }
  virtual void SetExtraState(const std::map<std::string, double>& state) {}

  // Sets every param group's lr to config.LrAt(timestep) and returns it.
  double UpdateLr();
  // Replaces the Adam optimiser (before any learning) with torch's RMSprop: `decay` is
  // its smoothing constant (alpha), `epsilon` is added to the root of the mean square.
  void UseRMSProp(double decay, double momentum, double epsilon);

  struct Impl;
  Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ray::rllib
