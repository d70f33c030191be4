#pragma once
// A worker process: started by the raylet, it runs the tasks the raylet sends it,
// one at a time, loading plugins on first use. A worker that creates an actor hosts
// that one actor for the rest of its life.

#include <string>

#include "runtime/base/status.h"

namespace ray::worker {

struct WorkerOptions {
  std::string raylet_endpoint;
  std::string worker_id_hex;
  std::string session_dir;
  std::string node_id_hex;
};

// Returns when the raylet asks the worker to exit or goes away.
Status RunWorker(const WorkerOptions& options);

}  // namespace ray::worker
