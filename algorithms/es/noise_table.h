#pragma once
// The shared noise table of evolution strategies (Salimans et al. 2017, "Evolution
// Strategies as a Scalable Alternative to Reinforcement Learning"; RLlib's
// SharedNoiseTable): one large block of standard normal float32 noise, built once
// from a fixed seed, put once in the object store and read by every worker. A
// perturbation of a policy with P parameters is the P consecutive floats starting at
// a random offset, so a worker sends back only the offset and the trainer rebuilds the
// same perturbation from its own view of the same block.
//
// NoiseTable is a read-only view; it does not own the bytes (a ray::Blob that maps
// the object does). Reads copy out (the block may sit unaligned inside its object).
// Thread-safe for reads.

#include <cstdint>
#include <string>
#include <vector>

#include "ray/rllib/rng.h"

namespace ray::rllib {

// The seed of every noise table, as RLlib's create_shared_noise (123).
inline constexpr uint64_t kNoiseTableSeed = 123;

// `count` standard normal floats from Rng(seed), as raw bytes (count * 4).
std::string MakeNoiseBytes(int64_t count, uint64_t seed = kNoiseTableSeed);

class NoiseTable {
 public:
  NoiseTable() = default;
  // A view of `bytes` (size a multiple of 4) that must outlive the table.
  NoiseTable(const char* bytes, size_t size) : data_(bytes), count_(static_cast<int64_t>(size / 4)) {}

  int64_t size() const { return count_; }
  // noise[i, i + dim). Precondition: 0 <= i <= size() - dim.
  std::vector<float> Get(int64_t i, int64_t dim) const;
  // out += scale * noise[i, i + dim), out.size() == dim.
  void AddScaled(int64_t i, float scale, std::vector<float>* out) const;
  // A uniform offset in [0, size() - dim]. Precondition: dim <= size().
  int64_t SampleIndex(int64_t dim, Rng& rng) const { return rng.Integer(count_ - dim + 1); }

 private:
  const char* data_ = nullptr;
  int64_t count_ = 0;
};

}  // namespace ray::rllib
