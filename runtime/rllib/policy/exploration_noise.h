#pragma once
// Ornstein-Uhlenbeck exploration noise, as RLlib 0.7's DDPG adds it to the actor's
// actions (Lillicrap et al. 2015): a per-dimension state x, starting at 0, that each
// Step() moves by  theta * (0 - x) + sigma * N(0, 1),  so it reverts to 0 at rate
// theta and is correlated in time (lag-1 autocorrelation 1 - theta; stationary
// variance sigma^2 / (1 - (1 - theta)^2)). Pure code, torch-free.

#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace ray::rllib {

class OrnsteinUhlenbeckNoise {
 public:
  // size > 0, theta in (0, 2) (else the process does not revert), sigma >= 0.
  OrnsteinUhlenbeckNoise(int size, double theta, double sigma) : theta_(theta), sigma_(sigma), x_(size, 0.0) {
    if (size <= 0) throw std::invalid_argument("OU noise: size must be > 0");
    if (!(theta > 0 && theta < 2)) throw std::invalid_argument("OU noise: theta must be in (0, 2)");
    if (!(sigma >= 0)) throw std::invalid_argument("OU noise: sigma must be >= 0");
  }

  // Advances every dimension one step and returns the new state.
  const std::vector<double>& Step(std::mt19937_64& rng) {
    std::normal_distribution<double> normal(0.0, 1.0);
    for (double& x : x_) x += theta_ * -x + sigma_ * normal(rng);
    return x_;
  }
  const std::vector<double>& state() const { return x_; }
  // A different number of dimensions (the sampler's batch changed) restarts at 0.
  void Resize(int size) {
    if (static_cast<int>(x_.size()) != size) x_.assign(size, 0.0);
  }

 private:
  double theta_, sigma_;
  std::vector<double> x_;
};

}  // namespace ray::rllib
