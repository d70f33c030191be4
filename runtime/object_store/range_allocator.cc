#include "runtime/object_store/range_allocator.h"

namespace ray::object_store {

RangeAllocator::RangeAllocator(uint64_t capacity) : capacity_(capacity / kAlignment * kAlignment) {
  if (capacity_ > 0) AddFree(0, capacity_);
}

uint64_t RangeAllocator::Rounded(uint64_t size) {
  if (size == 0) size = 1;
  return (size + kAlignment - 1) / kAlignment * kAlignment;
}

std::optional<uint64_t> RangeAllocator::Allocate(uint64_t size) {
  if (size > capacity_) return std::nullopt;
  const uint64_t need = Rounded(size);
  auto fit = by_size_.lower_bound({need, 0});
  if (fit == by_size_.end()) return std::nullopt;
  const auto [free_size, offset] = *fit;
  RemoveFree(by_offset_.find(offset));
  if (free_size > need) AddFree(offset + need, free_size - need);
  used_ += need;
  return offset;
}

void RangeAllocator::Free(uint64_t offset, uint64_t size) {
  uint64_t length = Rounded(size);
  used_ -= length;
  // Merged with the free range just after it, then with the one just before.
  auto next = by_offset_.find(offset + length);
  if (next != by_offset_.end()) {
    length += next->second;
    RemoveFree(next);
  }
  auto after = by_offset_.lower_bound(offset);
  if (after != by_offset_.begin()) {
    auto prev = std::prev(after);
    if (prev->first + prev->second == offset) {
      offset = prev->first;
      length += prev->second;
      RemoveFree(prev);
    }
  }
  AddFree(offset, length);
}

void RangeAllocator::AddFree(uint64_t offset, uint64_t size) {
  by_offset_.emplace(offset, size);
  by_size_.emplace(size, offset);
}

void RangeAllocator::RemoveFree(std::map<uint64_t, uint64_t>::iterator it) {
  by_size_.erase({it->second, it->first});
  by_offset_.erase(it);
}

}  // namespace ray::object_store
