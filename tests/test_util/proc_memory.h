#pragma once
// A process's memory as Linux reports it in /proc, for the benchmarks (peak and idle
// RSS) and the zero-copy checks (is a pointer inside a /dev/shm mapping?).

#include <sys/types.h>

#include <cstdint>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace ray::test_util {

// A "Name:  1234 kB" field of /proc/<pid>/status in KiB: VmRSS (resident now), VmHWM
// (peak resident), RssAnon (private, not backed by a file or shared memory),
// RssShmem (shared-memory pages this process touched). nullopt if the process is
// gone or has no such field.
inline std::optional<int64_t> StatusKib(pid_t pid, const std::string& field) {
  std::ifstream in("/proc/" + (pid > 0 ? std::to_string(pid) : "self") + "/status");
  const std::string prefix = field + ":";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) return std::stoll(line.substr(prefix.size()));
  }
  return std::nullopt;
}

// This process's field (0 if missing, which /proc never does for itself).
inline int64_t SelfKib(const std::string& field) { return StatusKib(0, field).value_or(0); }

// The file backing this process's mapping that holds [data, data + size), or "" if no
// single mapping holds it (heap and anonymous memory have no path).
inline std::string MappingOf(const void* data, size_t size) {
  const auto begin = reinterpret_cast<uintptr_t>(data), end = begin + size;
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    // "start-end perms offset dev inode   path"
    std::istringstream fields(line);
    std::string range, perms, offset, dev, inode, path;
    fields >> range >> perms >> offset >> dev >> inode >> path;
    const uintptr_t lo = std::stoull(range, nullptr, 16);
    const uintptr_t hi = std::stoull(range.substr(range.find('-') + 1), nullptr, 16);
    if (lo <= begin && end <= hi) return path;
  }
  return "";
}

}  // namespace ray::test_util
