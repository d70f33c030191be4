#pragma once
// Blobs whose every byte is known, and a checksum to compare them by: for test jobs
// that check the objects they get back.

#include <ray/api.h>

#include <cstdint>
#include <string>

namespace ray::testing {

// FNV-1a over the bytes.
inline uint64_t Checksum(const char* data, size_t size) {
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < size; ++i) h = (h ^ static_cast<unsigned char>(data[i])) * 1099511628211ULL;
  return h;
}

// `size` bytes, byte i being (31 i + seed) mod 256.
inline ray::Blob Pattern(uint64_t size, int seed) {
  std::string s(size, '\0');
  for (size_t i = 0; i < size; ++i) s[i] = static_cast<char>((i * 31 + seed) & 0xff);
  return ray::Blob(std::move(s));
}

}  // namespace ray::testing
