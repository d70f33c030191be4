#include "runtime/rllib/env/spaces.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace ray::rllib {
namespace {

void Check(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "ray::rllib spaces: precondition violated: %s\n", what);
    std::abort();
  }
}

}  // namespace

Box::Box(std::vector<float> low, std::vector<float> high, std::vector<int64_t> shape)
    : low_(std::move(low)), high_(std::move(high)), shape_(std::move(shape)) {
  Check(low_.size() == high_.size(), "Box low and high differ in size");
  if (shape_.empty()) shape_ = {static_cast<int64_t>(low_.size())};
  int64_t product = 1;
  for (int64_t d : shape_) {
    Check(d >= 0, "Box shape has a negative dimension");
    product *= d;
  }
  Check(product == static_cast<int64_t>(low_.size()), "Box shape does not match bounds");
  for (size_t i = 0; i < low_.size(); ++i) Check(low_[i] <= high_[i], "Box low > high");
}

Box Box::Uniform(float low, float high, std::vector<int64_t> shape) {
  int64_t size = 1;
  for (int64_t d : shape) size *= d;
  return Box(std::vector<float>(size, low), std::vector<float>(size, high), std::move(shape));
}

bool Box::Contains(const std::vector<float>& x) const {
  if (x.size() != low_.size()) return false;
  for (size_t i = 0; i < x.size(); ++i) {
    if (!(x[i] >= low_[i] && x[i] <= high_[i])) return false;
  }
  return true;
}

std::vector<float> Box::Sample(Rng& rng) const {
  std::vector<float> out(low_.size());
  for (size_t i = 0; i < out.size(); ++i) {
    const bool low_bounded = std::isfinite(low_[i]);
    const bool high_bounded = std::isfinite(high_[i]);
    double v;
    if (low_bounded && high_bounded) {
      v = rng.Uniform(low_[i], high_[i]);
    } else if (low_bounded) {
      v = low_[i] + rng.Exponential();
    } else if (high_bounded) {
      v = high_[i] - rng.Exponential();
    } else {
      v = rng.Normal();
    }
    out[i] = std::clamp(static_cast<float>(v), low_[i], high_[i]);
  }
  return out;
}

std::string Box::ToString() const {
  std::string s = "Box(";
  for (size_t i = 0; i < shape_.size(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape_[i]);
  }
  if (shape_.size() == 1) s += ",";
  return s + ")";
}

Discrete::Discrete(int64_t n) : n_(n) { Check(n >= 1, "Discrete n < 1"); }

std::string Discrete::ToString() const { return "Discrete(" + std::to_string(n_) + ")"; }

bool Space::Contains(const Action& action) const {
  return is_discrete() ? discrete().Contains(action.index) : box().Contains(action.values);
}

bool Space::Contains(const std::vector<float>& x) const { return is_box() && box().Contains(x); }

Action Space::Sample(Rng& rng) const {
  return is_discrete() ? Action::OfIndex(discrete().Sample(rng))
                       : Action::OfValues(box().Sample(rng));
}

std::string Space::ToString() const {
  return is_discrete() ? discrete().ToString() : box().ToString();
}

}  // namespace ray::rllib
