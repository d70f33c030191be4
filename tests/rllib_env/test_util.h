#pragma once
// Helpers shared by the env tests: float32 observation comparison and a fixed,
// self-contained action sequence generator.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace ray::rllib::testing {

// 1e-6 relative, with an absolute floor for entries that are (nearly) zero.
inline void ExpectObsNear(const std::vector<float>& actual, const std::vector<float>& expected,
                          int step) {
  ASSERT_EQ(actual.size(), expected.size()) << "step " << step;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double tol = 1e-6 * std::max(1e-3, std::abs(static_cast<double>(expected[i])));
    EXPECT_NEAR(actual[i], expected[i], tol) << "step " << step << " obs[" << i << "]";
  }
}

// Doubles that should agree to rounding: 1e-9 relative, 1e-12 absolute floor.
inline void ExpectStateNear(double actual, double expected, int step, const char* what) {
  const double tol = std::max(1e-12, 1e-9 * std::abs(expected));
  EXPECT_NEAR(actual, expected, tol) << "step " << step << " " << what;
}

// A fixed pseudo-random sequence (Knuth's MMIX LCG), independent of the library's Rng.
class Lcg {
 public:
  explicit Lcg(uint64_t seed) : x_(seed) {}
  uint64_t Next() {
    x_ = x_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return x_ >> 33;
  }
  int Index(int n) { return static_cast<int>(Next() % n); }
  // Uniform in [low, high].
  double Real(double low, double high) {
    return low + (high - low) * (static_cast<double>(Next()) / 2147483647.0);
  }

 private:
  uint64_t x_;
};

}  // namespace ray::rllib::testing
