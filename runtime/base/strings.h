#pragma once
// Splitting text.

#include <string>
#include <string_view>
#include <vector>

namespace ray {

// The pieces of `s` between `sep`s (empty pieces kept).
std::vector<std::string> Split(std::string_view s, char sep);

}  // namespace ray
