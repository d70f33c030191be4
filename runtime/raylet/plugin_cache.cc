#include "runtime/raylet/plugin_cache.h"

#include <unistd.h>

#include "runtime/base/fs.h"
#include "runtime/base/logging.h"

namespace ray::raylet {

bool PluginCache::Ensure(const std::string& hash) {
  if (known_.count(hash)) return true;
  std::string path = FileOf(hash);
  if (::access(path.c_str(), R_OK) != 0) {
    auto bytes = fetch_(hash);
    if (!bytes.ok() && bytes.status().code() == StatusCode::kUnavailable) {
      if (!warned_) RAY_LOG_WARN("plugin {} waits for the GCS: {}", hash, bytes.status().message());
      warned_ = true;
      return false;
    }
    if (!bytes.ok()) {
      RAY_LOG_ERROR("cannot fetch plugin {}: {}", hash, bytes.status().message());
      return true;  // the worker reports the missing file as the task's error
    }
    Status st = WriteFile(path, *bytes, 0755);
    if (!st.ok()) RAY_LOG_ERROR("{}", st.message());
  }
  warned_ = false;
  known_.emplace(hash, path);
  return true;
}

std::string PluginCache::PathOf(const std::string& hash) {
  if (auto known = known_.find(hash); known != known_.end()) return known->second;
  Ensure(hash);
  return FileOf(hash);
}

}  // namespace ray::raylet
