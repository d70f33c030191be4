#include "runtime/object_store/range_allocator.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

namespace ray::object_store {
namespace {

TEST(RangeAllocatorTest, RangesAreAlignedAndTakenFromTheStart) {
  RangeAllocator a(1024);
  EXPECT_EQ(a.Allocate(10), 0u);
  EXPECT_EQ(a.Allocate(20), 16u);
  EXPECT_EQ(a.Allocate(0), 48u);  // one byte at least
  EXPECT_EQ(a.used(), 64u);
}

TEST(RangeAllocatorTest, TheSmallestHoleThatFitsIsUsed) {
  RangeAllocator a(1024);
  auto big = a.Allocate(64);
  auto sep1 = a.Allocate(16);
  auto small = a.Allocate(32);
  auto sep2 = a.Allocate(16);
  ASSERT_TRUE(big && sep1 && small && sep2);
  a.Free(*big, 64);
  a.Free(*small, 32);
  EXPECT_EQ(a.Allocate(20), *small);  // the 32-byte hole, not the 64-byte one
  EXPECT_EQ(a.Allocate(64), *big);
}

TEST(RangeAllocatorTest, FreedNeighboursMergeIntoOneRange) {
  RangeAllocator a(256);
  auto x = a.Allocate(90), y = a.Allocate(96), z = a.Allocate(64);  // 96 + 96 + 64
  ASSERT_TRUE(x && y && z);
  EXPECT_FALSE(a.Allocate(1)) << "full";
  a.Free(*x, 90);
  a.Free(*z, 64);
  EXPECT_EQ(a.free_ranges(), 2u);
  a.Free(*y, 96);  // joins both
  EXPECT_EQ(a.free_ranges(), 1u);
  EXPECT_EQ(a.used(), 0u);
  EXPECT_EQ(a.Allocate(256), 0u);
}

TEST(RangeAllocatorTest, WhatDoesNotFitIsRefused) {
  RangeAllocator a(100);  // 96 usable (aligned)
  EXPECT_EQ(a.capacity(), 96u);
  EXPECT_FALSE(a.Allocate(97));
  EXPECT_FALSE(a.Allocate(uint64_t{1} << 62));
  EXPECT_EQ(a.Allocate(96), 0u);
}

TEST(RangeAllocatorTest, RandomChurnNeverOverlapsAndEndsInOneRange) {
  RangeAllocator a(1 << 16);
  std::mt19937 rng(7);
  std::map<uint64_t, uint64_t> live;  // offset -> size asked
  for (int step = 0; step < 20000; ++step) {
    if (live.empty() || rng() % 3 != 0) {
      uint64_t size = 1 + rng() % 700;
      auto off = a.Allocate(size);
      if (!off) continue;
      ASSERT_EQ(*off % RangeAllocator::kAlignment, 0u);
      ASSERT_LE(*off + size, a.capacity());
      auto next = live.lower_bound(*off);
      if (next != live.end()) {
        ASSERT_LE(*off + size, next->first) << "overlaps the next range";
      }
      if (next != live.begin()) {
        auto prev = std::prev(next);
        ASSERT_LE(prev->first + prev->second, *off) << "overlaps the previous range";
      }
      live.emplace(*off, size);
    } else {
      auto it = std::next(live.begin(), rng() % live.size());
      a.Free(it->first, it->second);
      live.erase(it);
    }
  }
  for (const auto& [off, size] : live) a.Free(off, size);
  EXPECT_EQ(a.used(), 0u);
  EXPECT_EQ(a.free_ranges(), 1u);
}

}  // namespace
}  // namespace ray::object_store
