#include "runtime/rllib/env/preprocessor.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace ray::rllib {

Preprocessor::Preprocessor(const Space& space) : space_name_(space.ToString()) {
  Add(space);
  identity_ = space.is_box();
}

void Preprocessor::Add(const Space& space) {
  if (space.is_box()) {
    parts_.push_back({false, space.box().size()});
    raw_size_ += space.box().size();
    size_ += space.box().size();
  } else if (space.is_discrete()) {
    parts_.push_back({true, space.discrete().n()});
    raw_size_ += 1;
    size_ += space.discrete().n();
  } else {
    space.ForEachPart([&](const Space& part) { Add(part); });
  }
}

Observation Preprocessor::Transform(Observation raw) const {
  if (static_cast<int64_t>(raw.size()) != raw_size_) {
    throw std::invalid_argument("env observation of " + std::to_string(raw.size()) + " floats does not fit its space " +
                                space_name_ + " (" + std::to_string(raw_size_) + " floats)");
  }
  if (identity_) return raw;
  Observation out(size_, 0.f);
  int64_t in = 0, at = 0;
  for (const Part& p : parts_) {
    if (!p.one_hot) {
      std::copy(raw.begin() + in, raw.begin() + in + p.width, out.begin() + at);
      in += p.width;
    } else {
      const float v = raw[in];
      if (!Discrete(p.width).ContainsValue(v)) {
        throw std::invalid_argument("env observation value " + std::to_string(v) + " (float " +
                                    std::to_string(in) + ") is not an index of Discrete(" +
                                    std::to_string(p.width) + ") in its space " + space_name_);
      }
      out[at + static_cast<int64_t>(v)] = 1.f;
      in += 1;
    }
    at += p.width;
  }
  return out;
}

}  // namespace ray::rllib
