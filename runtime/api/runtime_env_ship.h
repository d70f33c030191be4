#pragma once
// Ships a runtime environment (runtime_env.h) to the cluster, the way plugin files
// travel: its working_dir (packed, working_dir_pack.h) and its extra plugins are
// stored by `put`, each under the content hash of its bytes, and the environment
// returned names them by those hashes. Every node's raylet fetches them from the GCS
// when a worker of the environment asks. A job's environment is shipped by its driver
// straight to the GCS; a task's or actor's own by its submitter, through its raylet.

#include <functional>
#include <string>

#include "runtime/api/runtime_env.h"
#include "runtime/base/status.h"

namespace ray::core {

// Stores `bytes` under `hash` (`name` says what it was, for listings and errors).
using PutBlob =
    std::function<Status(const std::string& hash, const std::string& name, const std::string& bytes)>;

// InvalidArgument names a working_dir or plugin that cannot be read; put's errors come
// back as they are. An environment without a working_dir or plugins comes back as it is.
Result<RuntimeEnv> ShipRuntimeEnv(const RuntimeEnv& env, const PutBlob& put);

}  // namespace ray::core
