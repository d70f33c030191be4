#pragma once
// Segment trees over a fixed number of slots (RLlib's SumSegmentTree and
// MinSegmentTree, from OpenAI baselines): set one slot in O(log n), reduce all slots
// in O(1), and (sum tree) find the slot where a prefix sum crosses a value in
// O(log n). The prioritized replay buffer keeps priority^alpha in both. Pure code,
// not thread-safe.

#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace ray::rllib {

template <typename Op>
class SegmentTree {
 public:
  // `capacity` slots (rounded up to a power of two inside), all `neutral`.
  SegmentTree(int64_t capacity, double neutral) : neutral_(neutral) {
    if (capacity <= 0) throw std::invalid_argument("SegmentTree: capacity must be > 0");
    size_ = 1;
    while (size_ < capacity) size_ *= 2;
    capacity_ = capacity;
    nodes_.assign(2 * size_, neutral);
  }

  void Set(int64_t slot, double value) {
    Check(slot);
    int64_t i = slot + size_;
    nodes_[i] = value;
    for (i /= 2; i >= 1; i /= 2) nodes_[i] = op_(nodes_[2 * i], nodes_[2 * i + 1]);
  }
  double Get(int64_t slot) const {
    Check(slot);
    return nodes_[slot + size_];
  }
  // The reduction of every slot.
  double Reduce() const { return nodes_[1]; }

 protected:
  void Check(int64_t slot) const {
    if (slot < 0 || slot >= capacity_) {
      throw std::out_of_range("SegmentTree: slot " + std::to_string(slot) + " outside [0, " +
                              std::to_string(capacity_) + ")");
    }
  }
  double neutral_;
  int64_t size_ = 1;  // leaves (power of two)
  int64_t capacity_ = 0;
  std::vector<double> nodes_;  // 1-based heap; leaves at [size_, 2 * size_)
  Op op_;
};

struct MinOp {
  double operator()(double a, double b) const { return a < b ? a : b; }
};

class SumSegmentTree : public SegmentTree<std::plus<double>> {
 public:
  explicit SumSegmentTree(int64_t capacity) : SegmentTree(capacity, 0.0) {}
  // The smallest slot i with sum(slots[0..i]) > prefix_sum, for 0 <= prefix_sum <
  // Reduce(); a value at or beyond the total gives the last slot with mass.
  int64_t FindPrefixSumIndex(double prefix_sum) const {
    int64_t i = 1;
    while (i < size_) {
      if (nodes_[2 * i] > prefix_sum) {
        i = 2 * i;
      } else {
        prefix_sum -= nodes_[2 * i];
        // Float rounding can leave no mass on the right; stay where there is some.
        i = nodes_[2 * i + 1] > 0 ? 2 * i + 1 : 2 * i;
      }
    }
    return i - size_;
  }
};

class MinSegmentTree : public SegmentTree<MinOp> {
 public:
  explicit MinSegmentTree(int64_t capacity)
      : SegmentTree(capacity, std::numeric_limits<double>::infinity()) {}
};

}  // namespace ray::rllib
