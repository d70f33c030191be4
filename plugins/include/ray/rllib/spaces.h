#pragma once
// Gymnasium's Box, Discrete, Tuple and Dict spaces, and Space (one of them).
// Header-only (part of the env SDK).
//
// Box has float32 semantics: bounds and elements are float, and Contains() compares
// in float, as gymnasium.spaces.Box(dtype=np.float32) does. Bounds may be ±inf.
//
// An observation is a flat vector of floats (Observation). Its layout follows the
// space: a Box's elements row-major; a Discrete's index as one float; a Tuple's or a
// Dict's parts one after another (a Dict's in key order). Space::flat_size() counts
// them. Tuple and Dict are observation spaces only: an env's action space is a Box or
// a Discrete. The runtime flattens observations for the model as RLlib's default
// preprocessors do (a Discrete becomes a one-hot vector).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
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
  // An index held in a float, as in an observation: whole and in range (NaN is not).
  bool ContainsValue(float v) const { return v >= 0 && v < static_cast<float>(n_) && v == std::floor(v); }
  int64_t Sample(Rng& rng) const { return rng.Integer(n_); }
  // "Discrete(2)".
  std::string ToString() const { return "Discrete(" + std::to_string(n_) + ")"; }

  bool operator==(const Discrete& other) const = default;

 private:
  int64_t n_;
};

class Space;

// Gymnasium's Tuple: a fixed sequence of spaces (at least one; checked, aborts).
class Tuple {
 public:
  explicit Tuple(std::vector<Space> spaces);

  const std::vector<Space>& spaces() const { return spaces_; }
  // "Tuple(Discrete(2), Box(3,))".
  std::string ToString() const;
  bool operator==(const Tuple& other) const;

 private:
  std::vector<Space> spaces_;
};

// Gymnasium's Dict: named spaces, kept sorted by key as gymnasium.spaces.Dict sorts a
// dict it is given. At least one; keys unique (checked, aborts).
class Dict {
 public:
  explicit Dict(std::vector<std::pair<std::string, Space>> spaces);

  // Sorted by key.
  const std::vector<std::pair<std::string, Space>>& spaces() const { return spaces_; }
  // "Dict(a: Discrete(2), b: Box(3,))".
  std::string ToString() const;
  bool operator==(const Dict& other) const;

 private:
  std::vector<std::pair<std::string, Space>> spaces_;
};

// An env's observation or action space: a Box, a Discrete, a Tuple or a Dict.
class Space {
 public:
  Space(Box box) : space_(std::move(box)) {}      // NOLINT: implicit by design
  Space(Discrete discrete) : space_(discrete) {}  // NOLINT
  Space(Tuple tuple) : space_(std::move(tuple)) {}  // NOLINT
  Space(Dict dict) : space_(std::move(dict)) {}     // NOLINT

  bool is_box() const { return space_.index() == 0; }
  bool is_discrete() const { return space_.index() == 1; }
  bool is_tuple() const { return space_.index() == 2; }
  bool is_dict() const { return space_.index() == 3; }
  // Precondition: is_box() / is_discrete() / is_tuple() / is_dict() respectively.
  const Box& box() const { return std::get<Box>(space_); }
  const Discrete& discrete() const { return std::get<Discrete>(space_); }
  const Tuple& tuple() const { return std::get<Tuple>(space_); }
  const Dict& dict() const { return std::get<Dict>(space_); }

  // The number of floats of an observation of this space (see the layout above).
  int64_t flat_size() const {
    if (is_box()) return box().size();
    if (is_discrete()) return 1;
    int64_t n = 0;
    ForEachPart([&](const Space& part) { n += part.flat_size(); });
    return n;
  }
  // A Discrete space checks action.index; a Box checks action.values; a Tuple or a Dict
  // contains no action.
  bool Contains(const Action& action) const {
    if (is_discrete()) return discrete().Contains(action.index);
    return is_box() && box().Contains(action.values);
  }
  // An observation laid out as above.
  bool Contains(const std::vector<float>& x) const {
    if (static_cast<int64_t>(x.size()) != flat_size()) return false;
    return ContainsAt(x.data());
  }
  // An action drawn from the space. Precondition: a Box or a Discrete (aborts otherwise).
  Action Sample(Rng& rng) const {
    internal::CheckSpace(is_box() || is_discrete(), "only a Box or a Discrete space has actions");
    return is_discrete() ? Action::OfIndex(discrete().Sample(rng))
                         : Action::OfValues(box().Sample(rng));
  }
  std::string ToString() const {
    if (is_box()) return box().ToString();
    if (is_discrete()) return discrete().ToString();
    return is_tuple() ? tuple().ToString() : dict().ToString();
  }

  bool operator==(const Space& other) const { return space_ == other.space_; }

  // f(part) for a Tuple's parts, or a Dict's in key order; nothing for a Box or a
  // Discrete.
  template <typename F>
  void ForEachPart(F&& f) const {
    if (is_tuple()) {
      for (const Space& part : tuple().spaces()) f(part);
    } else if (is_dict()) {
      for (const auto& [key, part] : dict().spaces()) f(part);
    }
  }

 private:
  // The flat_size() floats at x.
  bool ContainsAt(const float* x) const {
    if (is_box()) return box().Contains(std::vector<float>(x, x + box().size()));
    if (is_discrete()) return discrete().ContainsValue(x[0]);
    bool ok = true;
    ForEachPart([&](const Space& part) {
      ok = ok && part.ContainsAt(x);
      x += part.flat_size();
    });
    return ok;
  }

  std::variant<Box, Discrete, Tuple, Dict> space_;
};

inline Tuple::Tuple(std::vector<Space> spaces) : spaces_(std::move(spaces)) {
  internal::CheckSpace(!spaces_.empty(), "Tuple has no spaces");
}

inline std::string Tuple::ToString() const {
  std::string s = "Tuple(";
  for (size_t i = 0; i < spaces_.size(); ++i) s += (i > 0 ? ", " : "") + spaces_[i].ToString();
  return s + ")";
}

inline bool Tuple::operator==(const Tuple& other) const { return spaces_ == other.spaces_; }

inline Dict::Dict(std::vector<std::pair<std::string, Space>> spaces) : spaces_(std::move(spaces)) {
  internal::CheckSpace(!spaces_.empty(), "Dict has no spaces");
  std::stable_sort(spaces_.begin(), spaces_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (size_t i = 1; i < spaces_.size(); ++i) {
    internal::CheckSpace(spaces_[i - 1].first != spaces_[i].first, "Dict has a key twice");
  }
}

inline std::string Dict::ToString() const {
  std::string s = "Dict(";
  for (size_t i = 0; i < spaces_.size(); ++i) {
    s += (i > 0 ? ", " : "") + spaces_[i].first + ": " + spaces_[i].second.ToString();
  }
  return s + ")";
}

inline bool Dict::operator==(const Dict& other) const { return spaces_ == other.spaces_; }

}  // namespace ray::rllib
