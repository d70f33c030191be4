#pragma once
// The postprocessing every replay-based policy (DQN, DDPG/TD3, SAC) runs on a
// trajectory fragment before it goes into the replay buffer, as RLlib's
// postprocess_nstep_and_prio without the priorities:
//  * new_obs: the next row's obs; after the last row `next_obs` (the observation to
//    bootstrap from), or zeros with the row marked done when there is none;
//  * with n_step > 1, RLlib's _adjust_nstep within the fragment: reward_i +=
//    sum_{0<j<n} gamma^j r_{i+j}; new_obs and done from row i+n-1 (fewer rows at the
//    fragment's end).
// `who` names the algorithm in errors (std::invalid_argument for a next_obs of the
// wrong width). Pure code.

#include <string>
#include <vector>

#include <ray/rllib/sample_batch.h>

namespace ray::rllib {

void PostprocessNStep(SampleBatch* traj, const std::vector<float>& next_obs, double gamma, int n_step,
                      const std::string& who);

}  // namespace ray::rllib
