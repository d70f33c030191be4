#pragma once
// Hands out byte ranges of a fixed-size region (the object index's arena): best fit
// (the smallest free range that holds the request, the lowest such offset on a tie),
// freed ranges merged with their free neighbours. Sizes are rounded up to
// kAlignment, so every offset is aligned.
//
// Pure bookkeeping: it touches no memory. Not thread-safe.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace ray::object_store {

class RangeAllocator {
 public:
  static constexpr uint64_t kAlignment = 16;

  explicit RangeAllocator(uint64_t capacity);

  // The offset of a new range of `size` bytes (at least one byte is taken), or
  // nullopt if no free range holds it.
  std::optional<uint64_t> Allocate(uint64_t size);
  // Returns a range Allocate gave, with the size it was asked for.
  void Free(uint64_t offset, uint64_t size);

  uint64_t capacity() const { return capacity_; }
  uint64_t used() const { return used_; }
  size_t free_ranges() const { return by_offset_.size(); }

 private:
  static uint64_t Rounded(uint64_t size);
  void AddFree(uint64_t offset, uint64_t size);
  void RemoveFree(std::map<uint64_t, uint64_t>::iterator it);

  uint64_t capacity_;
  uint64_t used_ = 0;
  std::map<uint64_t, uint64_t> by_offset_;           // free: offset -> size
  std::set<std::pair<uint64_t, uint64_t>> by_size_;  // free: (size, offset)
};

}  // namespace ray::object_store
