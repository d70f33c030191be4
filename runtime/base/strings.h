#pragma once
// Splitting text.

#include <string>
#include <string_view>
#include <vector>

namespace ray {

// The pieces of `s` between `sep`s (empty pieces kept).
std::vector<std::string> Split(std::string_view s, char sep);

// Equal, in time that depends only on the lengths (for tokens).
bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace ray
