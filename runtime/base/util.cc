#include "runtime/base/util.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

namespace ray {

std::string RandomBytes(size_t n) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  std::string out(n, '\0');
  for (size_t i = 0; i < n; i += 8) {
    uint64_t v = rng();
    std::memcpy(out.data() + i, &v, std::min<size_t>(8, n - i));
  }
  return out;
}

std::string ToHex(std::string_view bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out(bytes.size() * 2, '0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    auto b = static_cast<unsigned char>(bytes[i]);
    out[2 * i] = kDigits[b >> 4];
    out[2 * i + 1] = kDigits[b & 15];
  }
  return out;
}

std::optional<std::string> FromHex(std::string_view hex) {
  if (hex.size() % 2) return std::nullopt;
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out(hex.size() / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i) {
    int hi = nibble(hex[2 * i]), lo = nibble(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<char>(hi << 4 | lo);
  }
  return out;
}

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

bool ProcessAlive(int pid) {
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  // A zombie is not alive for our purposes.
  auto stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  if (!stat.ok()) return false;
  auto close_paren = stat->rfind(')');
  return close_paren == std::string::npos || close_paren + 2 >= stat->size() ||
         (*stat)[close_paren + 2] != 'Z';
}

std::string ProcessCmdline(int pid) {
  auto cmd = ReadFile("/proc/" + std::to_string(pid) + "/cmdline");
  if (!cmd.ok()) return "";
  std::string s = std::move(cmd).value();
  for (char& c : s) {
    if (c == '\0') c = ' ';
  }
  return s;
}

std::string ContentHash(std::string_view bytes) {
  uint64_t h = 14695981039346656037ULL;  // the FNV-1a 64-bit offset basis
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return buf;
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

std::vector<std::string> Split(std::string_view s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    out.emplace_back(s.substr(start, pos - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return out;
}

std::optional<std::string> LocalAddressToward(const std::string& host) {
  sockaddr_in peer{};
  peer.sin_family = AF_INET;
  peer.sin_port = htons(9);
  if (::inet_pton(AF_INET, host.c_str(), &peer.sin_addr) != 1) return std::nullopt;
  int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::nullopt;
  sockaddr_in local{};
  socklen_t len = sizeof(local);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&peer), sizeof(peer)) == 0 &&
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0;
  ::close(fd);
  char buf[INET_ADDRSTRLEN];
  if (!ok || !::inet_ntop(AF_INET, &local.sin_addr, buf, sizeof(buf))) return std::nullopt;
  return std::string(buf);
}

}  // namespace ray
