#include "runtime/object_store/segment_writer.h"

#include "runtime/object_store/object_store.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ray::object_store {

Result<std::unique_ptr<SegmentWriter>> SegmentWriter::Create(const std::string& name, size_t size) {
  RAY_ASSIGN_OR_RETURN(NewSegment s, CreateSegment(name, size));
  return std::unique_ptr<SegmentWriter>(new SegmentWriter(name, s.fd, s.addr, size));
}

SegmentWriter::~SegmentWriter() {
  if (addr_ && size_) ::munmap(addr_, size_);
  if (fd_ >= 0) ::close(fd_);
  if (!sealed_) ::shm_unlink(name_.c_str());
}

Status SegmentWriter::Write(size_t offset, std::string_view bytes) {
  if (sealed_) return Status::FailedPrecondition("segment " + name_ + " is sealed");
  if (offset > size_ || bytes.size() > size_ - offset) {
    return Status::InvalidArgument("bytes [" + std::to_string(offset) + ", " +
                                   std::to_string(offset + bytes.size()) + ") fall outside " +
                                   name_ + " of " + std::to_string(size_) + " bytes");
  }
  std::memcpy(static_cast<char*>(addr_) + offset, bytes.data(), bytes.size());
  return Status::Ok();
}

Status SegmentWriter::Seal() {
  if (addr_ && size_) ::munmap(addr_, size_);
  addr_ = nullptr;
  ::fchmod(fd_, 0400);
  ::close(fd_);
  fd_ = -1;
  sealed_ = true;
  return Status::Ok();
}

}  // namespace ray::object_store
