#pragma once
// The random number generator every env owns (Gymnasium's `Env.np_random`).
//
// xoshiro256** seeded through SplitMix64: small state, fast, and its output is fully
// specified here, so a seed gives the same stream on every platform and compiler
// (unlike std::uniform_real_distribution, whose algorithm is implementation-defined).
// It is NOT numpy's PCG64: for the same seed, sampled initial states differ from
// Gymnasium's. Dynamics do not depend on the RNG, so trajectories from the same
// initial state and actions match Gymnasium exactly.
//
// Header-only (part of the env SDK). Not thread-safe; each env owns its own.

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>

namespace ray::rllib {

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) { Seed(seed); }

  void Seed(uint64_t seed) {
    for (uint64_t& word : s_) word = SplitMix64(seed);
  }
  // A seed from std::random_device, for envs reset without a seed.
  static uint64_t EntropySeed() {
    std::random_device device;
    return (static_cast<uint64_t>(device()) << 32) ^ device();
  }

  uint64_t NextU64() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1) with 53 random bits.
  double Uniform01() { return static_cast<double>(NextU64() >> 11) * 0x1.0p-53; }
  // low + (high - low) * Uniform01(), the form numpy's Generator.uniform uses.
  double Uniform(double low, double high) { return low + (high - low) * Uniform01(); }
  // Uniform integer in [0, n); n > 0. Unbiased (rejection sampling).
  int64_t Integer(int64_t n) {
    const uint64_t range = static_cast<uint64_t>(n);
    const uint64_t limit = UINT64_MAX - UINT64_MAX % range;
    uint64_t x;
    do {
      x = NextU64();
    } while (x >= limit);
    return static_cast<int64_t>(x % range);
  }
  // Standard normal (Box-Muller; one value per call, no cached second value).
  double Normal() {
    const double u1 = 1.0 - Uniform01();  // (0, 1]: log is finite
    const double u2 = Uniform01();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
  }
  // Exponential with rate 1.
  double Exponential() { return -std::log(1.0 - Uniform01()); }

 private:
  static uint64_t SplitMix64(uint64_t& x) {
    uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  uint64_t s_[4];
};

}  // namespace ray::rllib
