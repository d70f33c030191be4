#pragma once
// A scripted Policy for sampler tests (no torch).

#include <gtest/gtest.h>
#include <ray/rllib/policy.h>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace ray::rllib {

// A policy that always pushes right (CartPole then falls within ~10 steps) and records
// what the worker hands it. Only what a sampler uses is implemented.
class ScriptedPolicy : public Policy {
 public:
  explicit ScriptedPolicy(const PolicySpec& spec) : spec_(spec) {}
  const PolicySpec& spec() const override { return spec_; }
  ActionBatch ComputeActions(const std::vector<float>& obs, bool) override {
    const size_t rows = obs.size() / spec_.obs_dim;
    ActionBatch a;
    a.dist_dim = 2;
    a.actions.assign(rows, 1.f);
    a.action_logp.assign(rows, -0.1f);
    a.action_dist_inputs.assign(rows * 2, 0.f);  // no vf_preds: a policy without a critic
    return a;
  }
  void Postprocess(SampleBatch* traj, const std::vector<float>& next_obs) override {
    ++postprocessed;
    next_observations.push_back(next_obs);
    if (traj->terminateds.back()) {
      EXPECT_TRUE(next_obs.empty()) << "a terminated episode has nothing to bootstrap from";
    } else {
      EXPECT_EQ(next_obs.size(), static_cast<size_t>(spec_.obs_dim));
    }
    std::set<int64_t> ids(traj->eps_id.begin(), traj->eps_id.end());
    EXPECT_EQ(ids.size(), 1u) << "a trajectory is one episode";
    traj->advantages.assign(traj->size(), 1.f);
    traj->value_targets.assign(traj->size(), 0.f);
  }
  Gradients ComputeGradients(const SampleBatch&) override { throw std::logic_error("unused"); }
  void ApplyGradients(const std::vector<float>&) override { throw std::logic_error("unused"); }
  std::vector<float> GetWeights() const override { return {}; }
  void SetWeights(const std::vector<float>& w) override {
    if (!w.empty()) throw std::invalid_argument("this policy has no weights");
  }
  void SaveState(const std::string&) const override {}
  void RestoreState(const std::string&) override {}

  int postprocessed = 0;
  std::vector<std::vector<float>> next_observations;  // each Postprocess call's

 private:
  PolicySpec spec_;
};

}  // namespace ray::rllib
