#pragma once
// A small episode fragment acted by a policy, for the policy tests.

#include <ray/rllib/policy.h>

#include <vector>

namespace ray::rllib::testing {

// `n` steps of 3-float observations acted by `policy`; reward 1 for action 1; the
// last row terminated when `terminated`, else the fragment was cut there.
inline SampleBatch Fragment(Policy& policy, int n, bool terminated) {
  SampleBatch b;
  b.obs_dim = 3;
  for (int i = 0; i < n; ++i) {
    std::vector<float> o = {0.1f * i, -0.05f * i, 0.5f};
    ActionBatch a = policy.ComputeActions(o);
    b.dist_dim = a.dist_dim;
    b.obs.insert(b.obs.end(), o.begin(), o.end());
    b.actions.push_back(a.actions[0]);
    b.rewards.push_back(a.actions[0] == 1 ? 1.f : 0.f);
    b.terminateds.push_back(terminated && i == n - 1);
    b.truncateds.push_back(0);
    b.action_dist_inputs.insert(b.action_dist_inputs.end(), a.action_dist_inputs.begin(),
                                a.action_dist_inputs.end());
    b.action_logp.push_back(a.action_logp[0]);
    b.vf_preds.push_back(a.vf_preds[0]);
    b.eps_id.push_back(0);
  }
  return b;
}

}  // namespace ray::rllib::testing
