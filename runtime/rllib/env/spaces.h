#pragma once
// Gymnasium's Box and Discrete spaces, and Space (one of them).
//
// Box has float32 semantics: bounds and elements are float, and Contains() compares
// in float, as gymnasium.spaces.Box(dtype=np.float32) does. Bounds may be ±inf.

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "runtime/rllib/env/action.h"
#include "runtime/rllib/env/rng.h"

namespace ray::rllib {

class Box {
 public:
  // Preconditions (checked; a violation aborts, it is a programming error):
  // low.size() == high.size(), low[i] <= high[i], the product of `shape` equals
  // low.size(). An empty `shape` means the 1-D shape {low.size()}.
  Box(std::vector<float> low, std::vector<float> high, std::vector<int64_t> shape = {});
  // Every element bounded by the same [low, high].
  static Box Uniform(float low, float high, std::vector<int64_t> shape);

  const std::vector<float>& low() const { return low_; }
  const std::vector<float>& high() const { return high_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  // Number of elements (the product of shape()).
  int64_t size() const { return static_cast<int64_t>(low_.size()); }

  // True iff x has size() elements and low <= x <= high elementwise (NaN fails).
  bool Contains(const std::vector<float>& x) const;
  // As Gymnasium: uniform on bounded dims, low + Exp(1) / high - Exp(1) on half-bounded
  // dims, N(0, 1) on unbounded dims; the result is cast to float and lies in the Box.
  std::vector<float> Sample(Rng& rng) const;
  // The shape as a Python tuple: "Box(4,)", "Box(2, 3)".
  std::string ToString() const;

  bool operator==(const Box& other) const = default;

 private:
  std::vector<float> low_;
  std::vector<float> high_;
  std::vector<int64_t> shape_;
};

class Discrete {
 public:
  // The values {0, ..., n - 1}; n >= 1 (checked, aborts otherwise).
  explicit Discrete(int64_t n);

  int64_t n() const { return n_; }
  bool Contains(int64_t x) const { return x >= 0 && x < n_; }
  int64_t Sample(Rng& rng) const { return rng.Integer(n_); }
  // "Discrete(2)".
  std::string ToString() const;

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
  bool Contains(const Action& action) const;
  // An observation: false for a Discrete space.
  bool Contains(const std::vector<float>& x) const;
  // An action drawn from the space.
  Action Sample(Rng& rng) const;
  std::string ToString() const;

  bool operator==(const Space& other) const = default;

 private:
  std::variant<Box, Discrete> space_;
};

}  // namespace ray::rllib
