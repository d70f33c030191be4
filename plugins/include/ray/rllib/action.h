#pragma once
// The values an env takes and returns: observations and actions (part of the env SDK).

#include <cstdint>
#include <utility>
#include <vector>

namespace ray::rllib {

// Observations are float32, flattened row-major (Gymnasium's Box obs, dtype float32).
using Observation = std::vector<float>;

// One action. An env with a Discrete action space reads `index`; an env with a Box
// action space reads `values` (row-major, one entry per element of the Box). The other
// member is ignored. A plain struct rather than a std::variant so that a batch of
// discrete actions costs no allocation and either kind is cheap to build.
struct Action {
  int64_t index = 0;
  std::vector<float> values;

  static Action OfIndex(int64_t index) { return Action{index, {}}; }
  static Action OfValues(std::vector<float> values) { return Action{0, std::move(values)}; }
};

}  // namespace ray::rllib
