#include "runtime/rllib/replay/n_step.h"

#include <algorithm>
#include <stdexcept>

namespace ray::rllib {

void PostprocessNStep(SampleBatch* traj, const std::vector<float>& next_obs, double gamma, int n_step,
                      const std::string& who) {
  const int64_t n = traj->size();
  const int d = traj->obs_dim;
  if (n == 0) return;
  if (!next_obs.empty() && static_cast<int>(next_obs.size()) != d) {
    throw std::invalid_argument(who + " postprocess: next_obs has " + std::to_string(next_obs.size()) +
                                " values, obs_dim is " + std::to_string(d));
  }
  auto& new_obs = traj->new_obs;
  new_obs.assign(traj->obs.begin() + d, traj->obs.end());
  if (next_obs.empty()) {
    new_obs.insert(new_obs.end(), d, 0.f);
    traj->terminateds[n - 1] = 1;  // nothing to bootstrap from
  } else {
    new_obs.insert(new_obs.end(), next_obs.begin(), next_obs.end());
  }
  for (int64_t i = 0; i < n; ++i) {
    double discount = 1.0;
    for (int j = 1; j < n_step && i + j < n; ++j) {
      discount *= gamma;
      std::copy_n(new_obs.begin() + (i + j) * d, d, new_obs.begin() + i * d);
      traj->terminateds[i] = traj->terminateds[i + j];
      traj->rewards[i] += static_cast<float>(discount * traj->rewards[i + j]);
    }
  }
}

}  // namespace ray::rllib
