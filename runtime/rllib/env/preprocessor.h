#pragma once
// RLlib's default observation preprocessor (ModelCatalog.get_preprocessor): the
// observation as the model sees it, for an env's observation space.
//   Box          its elements as they are (NoPreprocessor);
//   Discrete(n)  n floats, one-hot (OneHotPreprocessor);
//   Tuple, Dict  each part preprocessed, one after another, a Dict's in key order
//                (TupleFlatteningPreprocessor, DictFlatteningPreprocessor).
// The raw observation is laid out as <ray/rllib/spaces.h> says. Pure code; no torch.

#include <cstdint>
#include <vector>

#include "ray/rllib/spaces.h"

namespace ray::rllib {

class Preprocessor {
 public:
  explicit Preprocessor(const Space& space);

  // Floats of a raw observation (space.flat_size()) and of a preprocessed one.
  int64_t raw_size() const { return raw_size_; }
  int64_t size() const { return size_; }

  // std::invalid_argument naming the space when `raw` has not raw_size() floats or a
  // Discrete part holds no index of it.
  Observation Transform(Observation raw) const;

 private:
  // One part of the flat layout: `width` floats copied (Box), or one float that picks
  // one of `width` one-hot floats (Discrete).
  struct Part {
    bool one_hot;
    int64_t width;
  };
  void Add(const Space& space);

  std::string space_name_;
  std::vector<Part> parts_;
  bool identity_;
  int64_t raw_size_ = 0;
  int64_t size_ = 0;
};

}  // namespace ray::rllib
