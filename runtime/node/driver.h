#pragma once
// Running a job: load its plugin here, publish the plugin to the cluster (by
// content hash, through the GCS), connect to a raylet as the job's driver, run the
// plugin's RAY_MAIN, and disconnect (the raylet then frees the job's actors and
// objects). Worker output reaches this process's terminal while the job runs.

#include <string>
#include <vector>

#include "runtime/base/status.h"

namespace ray::node {

struct JobOptions {
  std::string plugin_path;
  std::vector<std::string> args;  // argv[1..] for RAY_MAIN; argv[0] is the plugin path
  std::string gcs_address;
  std::string token;
  std::string raylet_socket;  // empty: a node of this machine, found through the GCS
};

// The job's exit code, or an error if it could not run at all.
Result<int> RunJob(const JobOptions& options);

}  // namespace ray::node
