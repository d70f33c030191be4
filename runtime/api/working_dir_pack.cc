#include "runtime/api/working_dir_pack.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <tuple>
#include <vector>

#include <msgpack.hpp>

#include "runtime/base/fs.h"
#include "runtime/base/hex.h"

namespace ray::core {

namespace fs = std::filesystem;
using File = std::tuple<std::string, uint32_t, std::string>;  // path, mode, bytes

Result<std::string> PackWorkingDir(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Status::InvalidArgument("runtime_env working_dir " + dir + " is not a directory");
  }
  std::vector<File> files;
  size_t total = 0;
  auto options = fs::directory_options::follow_directory_symlink;
  for (auto it = fs::recursive_directory_iterator(dir, options, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    RAY_ASSIGN_OR_RETURN(std::string bytes, ReadFile(it->path().string()));
    total += bytes.size();
    if (total > kMaxWorkingDirBytes) {
      return Status::InvalidArgument("runtime_env working_dir " + dir + " holds more than " +
                                     std::to_string(kMaxWorkingDirBytes >> 20) + " MiB");
    }
    auto mode = static_cast<uint32_t>(fs::status(it->path(), ec).permissions()) & 0777;
    files.emplace_back(fs::relative(it->path(), dir).string(), mode, std::move(bytes));
  }
  if (ec) return Status::InvalidArgument("runtime_env working_dir " + dir + ": " + ec.message());
  std::sort(files.begin(), files.end());  // the same directory packs the same
  msgpack::sbuffer buf;
  msgpack::pack(buf, files);
  return std::string(buf.data(), buf.size());
}

Status UnpackWorkingDir(const std::string& blob, const std::string& dir) {
  std::error_code ec;
  if (fs::is_directory(dir, ec)) return Status::Ok();
  std::vector<File> files;
  try {
    msgpack::unpack(blob.data(), blob.size()).get().convert(files);
  } catch (const std::exception& e) {
    return Status::DataLoss("working_dir blob for " + dir + " is malformed: " + e.what());
  }
  std::string staging = dir + ".tmp-" + ToHex(RandomBytes(4));
  for (const auto& [rel, mode, bytes] : files) {
    fs::path p = fs::path(rel).lexically_normal();
    if (p.is_absolute() || p.empty() || *p.begin() == "..") {
      return Status::DataLoss("working_dir blob names a file outside it: " + rel);
    }
    fs::path out = fs::path(staging) / p;
    fs::create_directories(out.parent_path(), ec);
    if (ec) return Status::Internal("cannot create " + out.parent_path().string() + ": " + ec.message());
    RAY_RETURN_IF_ERROR(WriteFile(out.string(), bytes, mode ? mode : 0644));
  }
  fs::create_directories(staging, ec);
  if (::rename(staging.c_str(), dir.c_str()) != 0) {
    fs::remove_all(staging, ec);
    if (fs::is_directory(dir, ec)) return Status::Ok();  // another worker was first
    return Status::Internal("cannot move the working_dir into " + dir);
  }
  return Status::Ok();
}

}  // namespace ray::core
