#include "runtime/object_store/spill_files.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "runtime/object_store/object_store.h"

namespace ray::object_store {

std::string SpillPath(const std::string& dir, const std::string& store_tag, const ObjectId& id) {
  return dir + "/" + store_tag + "-" + id.Hex();
}

Status SpillSegment(const std::string& segment, size_t size, const std::string& path) {
  RAY_ASSIGN_OR_RETURN(auto mapping, MapSegment(segment, size));
  std::string dir = path.substr(0, path.rfind('/'));
  ::mkdir(dir.c_str(), 0700);  // exists already after the first spill
  int fd = ::open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0)
    return Status::Internal("cannot create spill file " + path + ": " + std::strerror(errno));
  ::fchmod(fd, 0600);
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::write(fd, mapping->data() + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int err = n < 0 ? errno : ENOSPC;
      ::close(fd);
      ::unlink(path.c_str());
      std::string what = "cannot write spill file " + path + ": " + std::strerror(err);
      return err == ENOSPC ? Status::ResourceExhausted(what) : Status::Internal(what);
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    ::unlink(path.c_str());
    return Status::Internal("cannot write spill file " + path + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

Status RestoreSegment(const std::string& path, const std::string& segment, size_t size) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Status::DataLoss("cannot open spill file " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || static_cast<size_t>(st.st_size) != size) {
    ::close(fd);
    return Status::DataLoss("spill file " + path + " has " + std::to_string(st.st_size) +
                            " bytes, expected " + std::to_string(size));
  }
  UnlinkSegment(segment);  // a stale segment of that name would refuse the new one
  auto created = WritableSegment::Create(segment, size);
  if (!created.ok()) {
    ::close(fd);
    return created.status();
  }
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, (*created)->data() + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(fd);
      UnlinkSegment(segment);
      return Status::DataLoss("cannot read spill file " + path + ": " +
                              (n < 0 ? std::strerror(errno) : "it ended early"));
    }
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  return Status::Ok();
}

void RemoveSpillFiles(const std::string& dir, const std::string& store_tag) {
  if (store_tag.empty() || dir.empty()) return;
  std::string prefix = store_tag + "-";
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  while (dirent* e = ::readdir(d)) {
    if (std::strncmp(e->d_name, prefix.c_str(), prefix.size()) == 0) {
      ::unlink((dir + "/" + e->d_name).c_str());
    }
  }
  ::closedir(d);
}

}  // namespace ray::object_store
