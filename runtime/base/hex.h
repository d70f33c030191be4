#pragma once
// Bytes as text and names: hex, content hashes, random bytes.

#include <optional>
#include <string>
#include <string_view>

namespace ray {

std::string RandomBytes(size_t n);
std::string ToHex(std::string_view bytes);
std::optional<std::string> FromHex(std::string_view hex);
// Content hash used to name plugins (64-bit FNV-1a over the bytes, as hex).
std::string ContentHash(std::string_view bytes);

}  // namespace ray
