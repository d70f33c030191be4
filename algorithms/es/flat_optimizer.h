#pragma once
// The optimizers of ES and ARS over a flat parameter vector (RLlib's
// agents/es/optimizers.py, from openai/evolution-strategies-starter): Update(g)
// returns theta + step for a descent direction g, and the update ratio
// |step| / |theta| that RLlib reports. Adam (ES: `stepsize`; beta1 0.9, beta2 0.999,
// epsilon 1e-8, bias-corrected step size) or plain SGD (ARS: `sgd_stepsize`).
// The state (moments, step count) goes into checkpoints. Not thread-safe.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/base/status.h"

namespace ray::rllib {

class FlatOptimizer {
 public:
  virtual ~FlatOptimizer() = default;
  // theta + step(g), where step descends along g. g.size() == theta.size().
  std::vector<float> Update(const std::vector<float>& theta, const std::vector<float>& g, double* update_ratio);

  virtual nlohmann::json ToJson() const = 0;
  virtual Status FromJson(const nlohmann::json& j) = 0;

 protected:
  virtual std::vector<float> Step(const std::vector<float>& g) = 0;
  int64_t t_ = 0;
};

std::unique_ptr<FlatOptimizer> MakeAdam(size_t dim, double stepsize);
std::unique_ptr<FlatOptimizer> MakeSgd(double stepsize);

}  // namespace ray::rllib
