#include "runtime/base/fs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "runtime/base/hex.h"

namespace ray {

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound("cannot open " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Status WriteFile(const std::string& path, std::string_view data, int mode) {
  // Unique per call, so that threads writing the same path do not share a temp file.
  std::string tmp = path + ".tmp." + std::to_string(getpid()) + "." + ToHex(RandomBytes(6));
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return Status::Internal("cannot create " + tmp + ": " + std::strerror(errno));
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::string err = std::strerror(errno);
      ::close(fd);
      ::unlink(tmp.c_str());
      return Status::ResourceExhausted("cannot write " + path + ": " + err);
    }
    off += static_cast<size_t>(n);
  }
  ::fchmod(fd, mode);
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return Status::Internal("cannot rename to " + path + ": " + std::strerror(errno));
  }
  return Status::Ok();
}

std::string SelfExecutable() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "ray";
  return std::string(buf, static_cast<size_t>(n));
}

std::string HomeDir() {
  const char* home = std::getenv("HOME");
  return home != nullptr ? home : "";
}

std::string ExpandUser(const std::string& path, const std::string& home) {
  if (path == "~") return home;
  if (path.rfind("~/", 0) == 0) return home + path.substr(1);
  return path;
}

}  // namespace ray
