#pragma once
// Transitions for the replay tests.

#include <ray/rllib/sample_batch.h>

namespace ray::rllib::testing {

// `n` transitions with 1-d observations first, first + 1, ...; new_obs = obs + 0.5,
// actions alternate 0/1, reward 10 * obs, every third row terminated.
inline SampleBatch Rows(int first, int n) {
  SampleBatch b;
  b.obs_dim = 1;
  for (int i = 0; i < n; ++i) {
    const float o = static_cast<float>(first + i);
    b.obs.push_back(o);
    b.new_obs.push_back(o + 0.5f);
    b.actions.push_back(static_cast<float>(i % 2));
    b.rewards.push_back(o * 10);
    b.terminateds.push_back(i % 3 == 0);
    b.truncateds.push_back(0);
    b.action_logp.push_back(0);
    b.eps_id.push_back(0);
  }
  return b;
}

}  // namespace ray::rllib::testing
