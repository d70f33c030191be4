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
// Not thread-safe; each env owns its own.

#include <cstdint>

namespace ray::rllib {

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) { Seed(seed); }

  void Seed(uint64_t seed);
  // A seed from std::random_device, for envs reset without a seed.
  static uint64_t EntropySeed();

  uint64_t NextU64();
  // Uniform in [0, 1) with 53 random bits.
  double Uniform01();
  // low + (high - low) * Uniform01(), the form numpy's Generator.uniform uses.
  double Uniform(double low, double high);
  // Uniform integer in [0, n); n > 0. Unbiased (rejection sampling).
  int64_t Integer(int64_t n);
  // Standard normal (Box-Muller; one value per call, no cached second value).
  double Normal();
  // Exponential with rate 1.
  double Exponential();

 private:
  uint64_t s_[4];
};

}  // namespace ray::rllib
