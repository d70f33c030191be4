#include "runtime/object_store/segment_writer.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ray::object_store {

Result<std::unique_ptr<SegmentWriter>> SegmentWriter::Create(const std::string& name, size_t size) {
  int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return Status::AlreadyExists("segment " + name + " exists");
    return Status::Internal("shm_open " + name + ": " + std::strerror(errno));
  }
  void* addr = nullptr;
  if (size > 0) {
    int rc = ::posix_fallocate(fd, 0, static_cast<off_t>(size));
    if (rc == 0) addr = ::mmap(nullptr, size, PROT_WRITE, MAP_SHARED, fd, 0);
    if (rc != 0 || addr == MAP_FAILED) {
      std::string err = std::strerror(rc != 0 ? rc : errno);
      ::close(fd);
      ::shm_unlink(name.c_str());
      return Status::ResourceExhausted("cannot allocate " + std::to_string(size) +
                                       " bytes of shared memory for " + name + ": " + err);
    }
  }
  return std::unique_ptr<SegmentWriter>(new SegmentWriter(name, fd, addr, size));
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
