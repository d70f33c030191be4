#include "algorithms/es/noise_table.h"

#include <cstring>

namespace ray::rllib {

std::string MakeNoiseBytes(int64_t count, uint64_t seed) {
  std::string bytes(static_cast<size_t>(count) * sizeof(float), '\0');
  Rng rng(seed);
  for (int64_t i = 0; i < count; ++i) {
    const float v = static_cast<float>(rng.Normal());
    std::memcpy(bytes.data() + i * sizeof(float), &v, sizeof(float));
  }
  return bytes;
}

std::vector<float> NoiseTable::Get(int64_t i, int64_t dim) const {
  std::vector<float> out(static_cast<size_t>(dim));
  std::memcpy(out.data(), data_ + i * sizeof(float), out.size() * sizeof(float));
  return out;
}

void NoiseTable::AddScaled(int64_t i, float scale, std::vector<float>* out) const {
  const char* p = data_ + i * sizeof(float);
  for (size_t k = 0; k < out->size(); ++k, p += sizeof(float)) {
    float v;
    std::memcpy(&v, p, sizeof(float));
    (*out)[k] += scale * v;
  }
}

}  // namespace ray::rllib
