#include "runtime/api/runtime_env_ship.h"

#include "runtime/api/working_dir_pack.h"
#include "runtime/base/fs.h"
#include "runtime/base/hex.h"

namespace ray::core {

Result<RuntimeEnv> ShipRuntimeEnv(const RuntimeEnv& env, const PutBlob& put) {
  RuntimeEnv shipped = env;
  if (!env.working_dir.empty()) {
    RAY_ASSIGN_OR_RETURN(std::string blob, PackWorkingDir(env.working_dir));
    std::string hash = ContentHash(blob);
    RAY_RETURN_IF_ERROR(put(hash, "working_dir:" + env.working_dir, blob));
    shipped.working_dir = hash;
  }
  shipped.plugins.clear();
  for (const std::string& path : env.plugins) {
    auto bytes = ReadFile(path);
    if (!bytes.ok()) {
      return Status::InvalidArgument("runtime_env plugin " + path + ": " + bytes.status().message());
    }
    std::string hash = ContentHash(*bytes);
    RAY_RETURN_IF_ERROR(put(hash, path, *bytes));
    shipped.plugins.push_back(hash);
  }
  return shipped;
}

}  // namespace ray::core
