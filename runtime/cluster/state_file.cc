#include "runtime/cluster/state_file.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "runtime/base/util.h"

namespace ray::cluster {

namespace {

constexpr int64_t kLockTimeoutMs = 30000;

class FileLock {
 public:
  explicit FileLock(const std::string& path) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    fd_ = ::open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0) {
      error_ = std::strerror(errno);
      return;
    }
    // Held only for a read and a write: 30 s means a stuck holder.
    for (int64_t deadline = MonoMillis() + kLockTimeoutMs; ::flock(fd_, LOCK_EX | LOCK_NB) != 0;) {
      if (errno != EWOULDBLOCK || MonoMillis() > deadline) {
        error_ = errno == EWOULDBLOCK ? "still held by another process after 30 s" : std::strerror(errno);
        ::close(fd_);
        fd_ = -1;
        return;
      }
      ::usleep(10 * 1000);
    }
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }
  const std::string& error() const { return error_; }

 private:
  int fd_ = -1;
  std::string error_;
};

Result<nlohmann::json> Load(const std::string& path) {
  if (!std::filesystem::exists(path)) return nlohmann::json::object();
  RAY_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  try {
    auto j = nlohmann::json::parse(text);
    if (j.is_object()) return j;
  } catch (const std::exception&) {
  }
  return Status::DataLoss("the cluster state file " + path +
                          " is not a JSON object; move it away to start afresh");
}

}  // namespace

Status UpdateStateFile(const std::string& path,
                       const std::function<Status(nlohmann::json&)>& change) {
  FileLock lock(path);
  if (!lock.error().empty()) {
    return Status::Unavailable("cannot lock " + path + ".lock: " + lock.error());
  }
  RAY_ASSIGN_OR_RETURN(nlohmann::json doc, Load(path));
  try {
    RAY_RETURN_IF_ERROR(change(doc));
  } catch (const nlohmann::json::exception& e) {
    return Status::DataLoss("the cluster state file " + path + " does not hold what ray wrote (" +
                            e.what() + "); move it away to start afresh");
  }
  return WriteFile(path, doc.dump(2), 0600);
}

Result<nlohmann::json> ReadStateFile(const std::string& path) {
  FileLock lock(path);
  if (!lock.error().empty()) {
    return Status::Unavailable("cannot lock " + path + ".lock: " + lock.error());
  }
  return Load(path);
}

}  // namespace ray::cluster
