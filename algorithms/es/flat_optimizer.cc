#include "algorithms/es/flat_optimizer.h"

#include <cmath>

namespace ray::rllib {
namespace {

double Norm(const std::vector<float>& x) {
  double s = 0;
  for (float v : x) s += static_cast<double>(v) * v;
  return std::sqrt(s);
}

class Adam : public FlatOptimizer {
 public:
  Adam(size_t dim, double stepsize) : stepsize_(stepsize), m_(dim, 0.f), v_(dim, 0.f) {}

  nlohmann::json ToJson() const override { return {{"t", t_}, {"m", m_}, {"v", v_}}; }
  Status FromJson(const nlohmann::json& j) override {
    if (!j.is_object() || !j.contains("t") || !j.contains("m") || !j.contains("v")) {
      return Status::InvalidArgument("Adam state: expected {\"t\", \"m\", \"v\"}");
    }
    auto m = j["m"].get<std::vector<float>>();
    auto v = j["v"].get<std::vector<float>>();
    if (m.size() != m_.size() || v.size() != v_.size()) {
      return Status::InvalidArgument("Adam state has " + std::to_string(m.size()) + " moments, the policy " +
                                     std::to_string(m_.size()) + " parameters");
    }
    t_ = j["t"].get<int64_t>();
    m_ = std::move(m);
    v_ = std::move(v);
    return Status::Ok();
  }

 protected:
  std::vector<float> Step(const std::vector<float>& g) override {
    constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kEpsilon = 1e-8;
    const double t = static_cast<double>(t_);
    const double a = stepsize_ * std::sqrt(1 - std::pow(kBeta2, t)) / (1 - std::pow(kBeta1, t));
    std::vector<float> step(g.size());
    for (size_t i = 0; i < g.size(); ++i) {
      m_[i] = static_cast<float>(kBeta1 * m_[i] + (1 - kBeta1) * g[i]);
      v_[i] = static_cast<float>(kBeta2 * v_[i] + (1 - kBeta2) * g[i] * g[i]);
      step[i] = static_cast<float>(-a * m_[i] / (std::sqrt(v_[i]) + kEpsilon));
    }
    return step;
  }

 private:
  double stepsize_;
  std::vector<float> m_, v_;
};

class Sgd : public FlatOptimizer {
 public:
  explicit Sgd(double stepsize) : stepsize_(stepsize) {}
  nlohmann::json ToJson() const override { return {{"t", t_}}; }
  Status FromJson(const nlohmann::json& j) override {
    if (!j.is_object() || !j.contains("t")) return Status::InvalidArgument("SGD state: expected {\"t\"}");
    t_ = j["t"].get<int64_t>();
    return Status::Ok();
  }

 protected:
  std::vector<float> Step(const std::vector<float>& g) override {
    std::vector<float> step(g.size());
    for (size_t i = 0; i < g.size(); ++i) step[i] = static_cast<float>(-stepsize_ * g[i]);
    return step;
  }

 private:
  double stepsize_;
};

}  // namespace

std::vector<float> FlatOptimizer::Update(const std::vector<float>& theta, const std::vector<float>& g,
                                         double* update_ratio) {
  ++t_;
  std::vector<float> step = Step(g);
  const double theta_norm = Norm(theta);
  if (update_ratio) *update_ratio = theta_norm > 0 ? Norm(step) / theta_norm : 0.0;
  std::vector<float> out(theta.size());
  for (size_t i = 0; i < theta.size(); ++i) out[i] = theta[i] + step[i];
  return out;
}

std::unique_ptr<FlatOptimizer> MakeAdam(size_t dim, double stepsize) { return std::make_unique<Adam>(dim, stepsize); }
std::unique_ptr<FlatOptimizer> MakeSgd(double stepsize) { return std::make_unique<Sgd>(stepsize); }

}  // namespace ray::rllib
