#include "algorithms/es/flat_policy.h"

#include <algorithm>
#include <cmath>

#include "runtime/rllib/env/preprocessor.h"

namespace ray::rllib {

Result<FlatPolicy> FlatPolicy::Create(const Space& observation_space, const Space& action_space,
                                      const std::vector<int>& hiddens, const std::string& activation) {
  if (!action_space.is_box() && !action_space.is_discrete()) {
    return Status::InvalidArgument("the action space " + action_space.ToString() +
                                   " is not supported (a Box or a Discrete)");
  }
  int act = activation == "linear" ? 0 : activation == "tanh" ? 1 : activation == "relu" ? 2 : -1;
  if (act < 0) {
    return Status::InvalidArgument("config key 'model.fcnet_activation' must be tanh, relu or linear, got '" +
                                   activation + "'");
  }
  std::vector<int64_t> sizes = {Preprocessor(observation_space).size()};
  for (int h : hiddens) {
    if (h <= 0) return Status::InvalidArgument("config key 'model.fcnet_hiddens': layer sizes must be > 0");
    sizes.push_back(h);
  }
  sizes.push_back(action_space.is_discrete() ? action_space.discrete().n() : action_space.box().size());
  return FlatPolicy(action_space, std::move(sizes), act);
}

FlatPolicy::FlatPolicy(Space action_space, std::vector<int64_t> sizes, int activation)
    : action_space_(std::move(action_space)), sizes_(std::move(sizes)), activation_(activation) {
  for (size_t l = 0; l + 1 < sizes_.size(); ++l) num_params_ += sizes_[l + 1] * (sizes_[l] + 1);
  weights_.assign(static_cast<size_t>(num_params_), 0.f);
}

std::vector<float> FlatPolicy::InitialWeights(uint64_t seed) const {
  Rng rng(seed);
  std::vector<float> w(static_cast<size_t>(num_params_), 0.f);
  size_t at = 0;
  for (size_t l = 0; l + 1 < sizes_.size(); ++l) {
    const int64_t in = sizes_[l], out = sizes_[l + 1];
    const double stddev = l + 2 == sizes_.size() ? 0.01 : 1.0;
    for (int64_t o = 0; o < out; ++o) {
      double norm = 0;
      for (int64_t i = 0; i < in; ++i) {
        const double v = rng.Normal();
        w[at + o * in + i] = static_cast<float>(v);
        norm += v * v;
      }
      const double scale = stddev / std::sqrt(std::max(norm, 1e-12));
      for (int64_t i = 0; i < in; ++i) w[at + o * in + i] = static_cast<float>(w[at + o * in + i] * scale);
    }
    at += static_cast<size_t>(out * in + out);  // biases stay 0
  }
  return w;
}

Status FlatPolicy::SetWeights(std::vector<float> weights) {
  if (static_cast<int64_t>(weights.size()) != num_params_) {
    return Status::InvalidArgument("the policy has " + std::to_string(num_params_) + " parameters, got " +
                                   std::to_string(weights.size()));
  }
  weights_ = std::move(weights);
  return Status::Ok();
}

Action FlatPolicy::Compute(const float* obs, Rng* noise_rng, double action_noise_std) const {
  a_.assign(obs, obs + sizes_.front());
  const float* w = weights_.data();
  for (size_t l = 0; l + 1 < sizes_.size(); ++l) {
    const int64_t in = sizes_[l], out = sizes_[l + 1];
    const float* bias = w + out * in;
    b_.assign(static_cast<size_t>(out), 0.f);
    for (int64_t o = 0; o < out; ++o) {
      const float* row = w + o * in;
      float s = bias[o];
      for (int64_t i = 0; i < in; ++i) s += row[i] * a_[i];
      if (l + 2 < sizes_.size()) s = activation_ == 1 ? std::tanh(s) : activation_ == 2 ? std::max(s, 0.f) : s;
      b_[o] = s;
    }
    w += out * in + out;
    std::swap(a_, b_);
  }
  if (action_space_.is_discrete()) {
    return Action::OfIndex(std::max_element(a_.begin(), a_.end()) - a_.begin());
  }
  const Box& box = action_space_.box();
  std::vector<float> values(a_.begin(), a_.end());
  for (size_t k = 0; k < values.size(); ++k) {
    if (noise_rng && action_noise_std > 0) values[k] += static_cast<float>(noise_rng->Normal() * action_noise_std);
    values[k] = std::clamp(values[k], box.low()[k], box.high()[k]);
  }
  return Action::OfValues(std::move(values));
}

}  // namespace ray::rllib
