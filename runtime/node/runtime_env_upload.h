#pragma once
// Ships a job's runtime environment (runtime/api/runtime_env.h) to the cluster, the
// way plugin files travel: its working_dir (packed, runtime/api/working_dir_pack.h)
// and its extra plugins go to the GCS, each under the content hash of its bytes, and
// the environment returned names them by those hashes. Every node's raylet fetches
// them when a worker of the environment asks.

#include "runtime/api/runtime_env.h"
#include "runtime/base/status.h"
#include "runtime/gcs/gcs_client.h"

namespace ray::node {

// InvalidArgument names a working_dir or plugin that cannot be read; the GCS's errors
// come back as they are.
Result<core::RuntimeEnv> ShipRuntimeEnv(const core::RuntimeEnv& env, gcs::GcsClient& gcs);

}  // namespace ray::node
