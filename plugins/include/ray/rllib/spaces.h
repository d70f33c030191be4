#pragma once
// Gymnasium's Box and Discrete spaces, and Space (one of them). Header-only (part of
// the env SDK).
//
// Box has float32 semantics: bounds and elements are float, and Contains() compares
// in float, as gymnasium.spaces.Box(dtype=np.float32) does. Bounds may be ±inf.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <variant>
#include <vector>

#include "ray/rllib/action.h"
#include "ray/rllib/rng.h"

namespace ray::rllib {

namespace internal {
// A violated precondition of a space is a programming error: print it and abort.
inline void CheckSpace(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "ray::rllib spaces: precondition violated: %s\n", what);
    std::abort();
  }
}
}  // namespace internal

class Box {
 public:
  // Preconditions (checked; a violation aborts, it is a programming error):
  // low.size() == high.size(), low[i] <= high[i], the product of `shape` equals
  // low.size(). An empty `shape` means the 1-D shape {low.size()}.
  Box(std::vector<float> low, std::vector<float> high, std::vector<int64_t> shape = {})
      : low_(std::move(low)), high_(std::move(high)), shape_(std::move(shape)) {
    internal::CheckSpace(low_.size() == high_.size(), "Box low and high differ in size");
    if (shape_.empty()) shape_ = {static_cast<int64_t>(low_.size())};
    int64_t product = 1;
    for (int64_t d : shape_) {
      internal::CheckSpace(d >= 0, "Box shape has a negative dimension");
      product *= d;
    }
    internal::CheckSpace(product == static_cast<int64_t>(low_.size()),
                         "Box shape does not match bounds");
    for (size_t i = 0; i < low_.size(); ++i)
      internal::CheckSpace(low_[i] <= high_[i], "Box low > high");
  }
  // Every element bounded by the same [low, high].
  static Box Uniform(float low, float high, std::vector<int64_t> shape) {
    int64_t size = 1;
    for (int64_t d : shape) size *= d;
    return Box(std::vector<float>(size, low), std::vector<float>(size, high), std::move(shape));
  }

  const std::vector<float>& low() const { return low_; }
  const std::vector<float>& high() const { return high_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  // Number of elements (the product of shape()).
  int64_t size() const { return static_cast<int64_t>(low_.size()); }

  // True iff x has size() elements and low <= x <= high elementwise (NaN fails).
  bool Contains(const std::vector<float>& x) const {
    if (x.size() != low_.size()) return false;
    for (size_t i = 0; i < x.size(); ++i) {
      if (!(x[i] >= low_[i] && x[i] <= high_[i])) return false;
    }
    return true;
  }
  // As Gymnasium: uniform on bounded dims, low + Exp(1) / high - Exp(1) on half-bounded
  // dims, N(0, 1) on unbounded dims; the result is cast to float and lies in the Box.
  std::vector<float> Sample(Rng& rng) const {
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
  // The shape as a Python tuple: "Box(4,)", "Box(2, 3)".
  std::string ToString() const {
    std::string s = "Box(";
    for (size_t i = 0; i < shape_.size(); ++i) {
      if (i > 0) s += ", ";
      s += std::to_string(shape_[i]);
    }
    if (shape_.size() == 1) s += ",";
    return s + ")";
  }

  bool operator==(const Box& other) const = default;

 private:
  std::vector<float> low_;
  std::vector<float> high_;
  std::vector<int64_t> shape_;
};

class Discrete {
 public:
  // The values {0, ..., n - 1}; n >= 1 (checked, aborts otherwise).
  explicit Discrete(int64_t n) : n_(n) { internal::CheckSpace(n >= 1, "Discrete n < 1"); }

  int64_t n() const { return n_; }
  bool Contains(int64_t x) const { return x >= 0 && x < n_; }
  int64_t Sample(Rng& rng) const { return rng.Integer(n_); }
  // "Discrete(2)".
  std::string ToString() const { return "Discrete(" + std::to_string(n_) + ")"; }

  bool operator==(const Discrete& other) const = default;

 private:
  int64_t n_;
};

// An env's observation or action space: a Box or a Discrete.
class Space {
 public:
  Space(Box box) : space_(std::move(box)) {}      // NOLINT: implicit by design
  Space(Discrete discrete) : space_(discrete) {}  // NOLINT

  bool is_box() const { return space_.index() == 0; }
  bool is_discrete() const { return space_.index() == 1; }
  // Precondition: is_box() / is_discrete() respectively.
  const Box& box() const { return std::get<Box>(space_); }
  const Discrete& discrete() const { return std::get<Discrete>(space_); }

  // A Discrete space checks action.index; a Box checks action.values.
  bool Contains(const Action& action) const {
    return is_discrete() ? discrete().Contains(action.index) : box().Contains(action.values);
  }
  // An observation: false for a Discrete space.
  bool Contains(const std::vector<float>& x) const { return is_box() && box().Contains(x); }
  // An action drawn from the space.
  Action Sample(Rng& rng) const {
    return is_discrete() ? Action::OfIndex(discrete().Sample(rng))
                         : Action::OfValues(box().Sample(rng));
  }
  std::string ToString() const { return is_discrete() ? discrete().ToString() : box().ToString(); }

  bool operator==(const Space& other) const = default;

 private:
  std::variant<Box, Discrete> space_;
};

}  // namespace ray::rllib
