#pragma once
// Puts this worker process into a task's runtime environment (runtime/api/
// runtime_env.h), once: a worker serves one environment for life, as the raylet's
// pool keys workers by it. Entering sets the env_vars, unpacks the working_dir (a
// packed directory fetched by content hash, see working_dir_pack.h) under
// <session>/runtime_resources/working_dir_<hash>/ and makes it the cwd, and loads the
// extra plugins. Entering another environment afterwards is refused.
//
// Not thread-safe: the worker's task thread only.

#include <functional>
#include <optional>
#include <string>

#include "runtime/base/status.h"

namespace ray::worker {

class RuntimeEnvSetup {
 public:
  // The local path of the blob stored under `hash` (fetched by the raylet).
  using FetchFn = std::function<Result<std::string>(const std::string& hash)>;
  // Loads the plugin stored under `hash` at `path`.
  using LoadFn = std::function<Status(const std::string& hash, const std::string& path)>;

  RuntimeEnvSetup(std::string session_dir, FetchFn fetch, LoadFn load)
      : session_dir_(std::move(session_dir)), fetch_(std::move(fetch)), load_(std::move(load)) {}

  // Ok once the process is in `canonical` ("": none); an error (naming what failed)
  // if it could not be set up, or the worker serves another environment already.
  Status Enter(const std::string& canonical);

 private:
  Status SetUp(const std::string& canonical);

  std::string session_dir_;
  FetchFn fetch_;
  LoadFn load_;
  std::optional<std::string> entered_;
};

}  // namespace ray::worker
