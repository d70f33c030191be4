#include "runtime/object_store/object_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "runtime/base/logging.h"

namespace ray::object_store {

Mapping::~Mapping() {
  if (addr_ && size_) ::munmap(addr_, size_);
}

std::string SegmentName(const std::string& store_tag, const ObjectId& id) {
  return "/ray-" + store_tag + "-" + id.Hex();
}

Result<NewSegment> CreateSegment(const std::string& name, size_t size) {
  int fd = ::shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return Status::AlreadyExists("segment " + name + " exists");
    return Status::Internal("shm_open " + name + ": " + std::strerror(errno));
  }
  void* addr = nullptr;
  if (size > 0) {
    int rc = ::posix_fallocate(fd, 0, static_cast<off_t>(size));
    if (rc == 0) addr = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (rc != 0 || addr == MAP_FAILED) {
      std::string err = std::strerror(rc != 0 ? rc : errno);
      ::close(fd);
      ::shm_unlink(name.c_str());
      return Status::ResourceExhausted("cannot allocate " + std::to_string(size) +
                                       " bytes of shared memory for " + name + ": " + err);
    }
  }
  return NewSegment{fd, addr};
}

Result<std::shared_ptr<WritableSegment>> WritableSegment::Create(const std::string& name,
                                                                 size_t size) {
  RAY_ASSIGN_OR_RETURN(NewSegment s, CreateSegment(name, size));
  ::fchmod(s.fd, 0400);  // sealed: readers cannot open it for writing
  ::close(s.fd);
  return std::shared_ptr<WritableSegment>(new WritableSegment(name, s.addr, size));
}

WritableSegment::~WritableSegment() {
  if (addr_) ::munmap(addr_, size_);
}

Status WritableSegment::Rename(const std::string& name) {
  // shm_open("/x") is /dev/shm/x on Linux.
  if (std::rename(("/dev/shm" + name_).c_str(), ("/dev/shm" + name).c_str()) != 0) {
    return Status::Internal("cannot rename segment " + name_ + " to " + name + ": " +
                            std::strerror(errno));
  }
  name_ = name;
  return Status::Ok();
}

void WritableSegment::Fill(const std::vector<std::string_view>& parts) {
  size_t offset = 0;
  for (std::string_view part : parts) {
    std::memcpy(data() + offset, part.data(), part.size());
    offset += part.size();
  }
}

Status WriteSegment(const std::string& name, std::string_view data) {
  RAY_ASSIGN_OR_RETURN(auto segment, WritableSegment::Create(name, data.size()));
  segment->Fill({data});
  return Status::Ok();
}

Result<std::shared_ptr<Mapping>> MapSegment(const std::string& name, size_t expected_size) {
  int fd = ::shm_open(name.c_str(), O_RDONLY, 0);
  if (fd < 0) return Status::NotFound("no shared-memory segment " + name);
  struct stat st {};
  ::fstat(fd, &st);
  if (static_cast<size_t>(st.st_size) != expected_size) {
    ::close(fd);
    return Status::DataLoss("segment " + name + " has " + std::to_string(st.st_size) +
                            " bytes, expected " + std::to_string(expected_size));
  }
  if (expected_size == 0) {
    ::close(fd);
    return std::make_shared<Mapping>(nullptr, 0);
  }
  void* addr = ::mmap(nullptr, expected_size, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (addr == MAP_FAILED) return Status::Internal("cannot map " + name + ": " + std::strerror(errno));
  return std::make_shared<Mapping>(addr, expected_size);
}

void UnlinkSegment(const std::string& name) { ::shm_unlink(name.c_str()); }

void UnlinkAllSegments(const std::string& store_tag) {
  if (store_tag.empty()) return;  // would match every ray segment on the machine
  std::string prefix = "ray-" + store_tag;
  DIR* dir = ::opendir("/dev/shm");
  if (!dir) return;
  while (dirent* e = ::readdir(dir)) {
    if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) {
      ::shm_unlink(("/" + std::string(e->d_name)).c_str());
    }
  }
  ::closedir(dir);
}

ObjectStore::ObjectStore(StoreOptions options) : options_(std::move(options)) {}

ObjectStore::~ObjectStore() {
  for (const auto& [id, e] : objects_) UnlinkSegment(e.segment);
}

Status ObjectStore::Admit(const ObjectId& id, const std::string& segment, size_t size) {
  if (auto it = objects_.find(id); it != objects_.end()) {
    // The same name is the segment already held: keep it.
    if (segment != it->second.segment) UnlinkSegment(segment);
    return Status::AlreadyExists("object " + id.Hex() + " is already in the store");
  }
  if (size > options_.capacity_bytes - used_) {  // used_ <= capacity: no wrap-around
    UnlinkSegment(segment);
    return Status::ResourceExhausted(
        "object store full: object " + id.Hex() + " needs " + std::to_string(size) +
        " bytes, " + std::to_string(options_.capacity_bytes - used_) + " of " +
        std::to_string(options_.capacity_bytes) + " are free (raise --object-store-memory)");
  }
  objects_[id] = Entry{segment, size};
  used_ += size;
  return Status::Ok();
}

void ObjectStore::Free(const ObjectId& id) {
  auto it = objects_.find(id);
  if (it == objects_.end()) return;
  UnlinkSegment(it->second.segment);
  Forget(id);
}

void ObjectStore::Forget(const ObjectId& id) {
  auto it = objects_.find(id);
  if (it == objects_.end()) return;
  used_ -= it->second.size;
  objects_.erase(it);
}

}  // namespace ray::object_store
