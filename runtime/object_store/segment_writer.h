#pragma once
// A shared-memory segment filled piece by piece (an object arriving from another
// node in chunks), then sealed read-only. Until Seal() the segment is incomplete:
// destroying the writer unlinks it, so a half-received object never becomes visible.

#include <memory>
#include <string>
#include <string_view>

#include "runtime/base/status.h"

namespace ray::object_store {

class SegmentWriter {
 public:
  // ResourceExhausted if shared memory cannot hold `size` bytes.
  static Result<std::unique_ptr<SegmentWriter>> Create(const std::string& name, size_t size);
  ~SegmentWriter();
  SegmentWriter(const SegmentWriter&) = delete;
  SegmentWriter& operator=(const SegmentWriter&) = delete;

  // InvalidArgument if the bytes fall outside the segment.
  Status Write(size_t offset, std::string_view bytes);
  // Makes the segment read-only and complete.
  Status Seal();

  const std::string& name() const { return name_; }
  size_t size() const { return size_; }

 private:
  SegmentWriter(std::string name, int fd, void* addr, size_t size)
      : name_(std::move(name)), fd_(fd), addr_(addr), size_(size) {}
  std::string name_;
  int fd_;
  void* addr_;
  size_t size_;
  bool sealed_ = false;
};

}  // namespace ray::object_store
