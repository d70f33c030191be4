#pragma once
// ContinuousReplayPolicy: what DDPG/TD3 and SAC policies share on a Box action space,
// learning from replayed transitions (SyncReplayOptimizer):
//  * Postprocess: new_obs and n-step rewards (replay/n_step.h); with
//    done_at_truncation, a row cut by the time limit counts as done (RLlib's
//    no_done_at_end false);
//  * one learn step: the algorithm's Losses() give a gradient for every weight,
//    each optimiser group's global norm clipped to grad_clip if set, and the groups
//    the algorithm names stepped (TD3 skips its actor between policy_delay steps);
//    LearnOnBatch does it without flattening, ComputeGradients/ApplyGradients split
//    it; LastTDErrors gives the step's |td| per row for prioritized replay;
//  * UpdateTarget: target <- tau * online + (1 - tau) * target (a copy at
//    construction), as RLlib's update_target with tau;
//  * weights, checkpoints (modules, targets, optimisers, log_alpha, counters) and
//    their layouts over the algorithm's named modules.
// Actions are stored in the env's units; learning maps them to [-1, 1] with the Box's
// bounds. Torch-free header (the algorithm's .cc includes continuous_policy_impl.h).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <ray/rllib/policy.h>

#include "runtime/rllib/optimizers/sync_replay_optimizer.h"

namespace ray::rllib {

struct ContinuousNets;   // continuous_policy_impl.h
struct ReplayTensors;
struct LossStep;

class ContinuousReplayPolicy : public Policy, public ReplayPolicy {
 public:
  ~ContinuousReplayPolicy() override;

  const PolicySpec& spec() const override { return spec_; }
  void Postprocess(SampleBatch* traj, const std::vector<float>& next_obs) override;
  LearnerStats LearnOnBatch(const SampleBatch& batch) override;
  Gradients ComputeGradients(const SampleBatch& batch) override;
  void ApplyGradients(const std::vector<float>& grads) override;
  std::vector<float> GetWeights() const override;
  void SetWeights(const std::vector<float>& weights) override;
  void OnGlobalVarUpdate(int64_t timestep) override { timestep_ = timestep; }
  void SaveState(const std::string& path) const override;
  void RestoreState(const std::string& path) override;

  std::vector<float> LastTDErrors() const override { return last_td_; }
  void UpdateTarget() override;
  // The step's |td| per row on `batch`, nothing learned (Ape-X's worker-side
  // prioritization; LastTDErrors keeps the last learn step's).
  std::vector<float> ComputeTDErrors(const SampleBatch& batch) override;

  int64_t timestep() const { return timestep_; }
  int64_t num_learn_steps() const { return learn_steps_; }

 protected:
  struct Options {
    std::string name;  // "SAC", "DDPG", ... in errors
    double gamma = 0.99;
    int n_step = 1;
    double tau = 0.005;
    bool done_at_truncation = false;
    std::optional<double> grad_clip;
  };
  // InvalidArgument (std::invalid_argument) for a Discrete space or missing bounds.
  ContinuousReplayPolicy(const PolicySpec& spec, Options options);
  // The subclass hands over its networks once built; targets are copied from their
  // sources here.
  void SetNets(std::unique_ptr<ContinuousNets> nets);
  ContinuousNets& nets() const { return *nets_; }

  // The algorithm's losses on a replayed batch: a gradient for every weight (in
  // GetWeights order; undefined: zero), which optimiser groups to step, stats, |td|.
  virtual LossStep Losses(const ReplayTensors& batch) = 0;
  // The optimiser groups the next learn step updates (empty: all); TD3 reads
  // num_learn_steps() for its policy_delay.
  virtual std::vector<bool> GroupsToStep() const { return {}; }

  const Options& options() const { return options_; }

 private:
  LossStep Compute(const SampleBatch& batch);
  void Apply(LossStep& step);

  PolicySpec spec_;
  Options options_;
  int64_t timestep_ = 0;
  int64_t learn_steps_ = 0;
  std::vector<float> last_td_;
  std::unique_ptr<ContinuousNets> nets_;
};

}  // namespace ray::rllib
