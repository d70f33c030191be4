#pragma once
// The GCS: the cluster's metadata service on the head node. It keeps nodes, jobs,
// actors (named ones by name), plugins (by content hash) and task events in SQLite
// (WAL, batched write-behind transactions) in the session dir, and answers over one
// ZeroMQ ROUTER socket. A node that misses heartbeats for heartbeat_timeout_ms is
// marked DEAD. Every request must carry the cluster token; a request without it is
// refused with an error reply. Malformed frames are logged and dropped.

#include <atomic>
#include <string>

#include "runtime/base/status.h"

namespace ray::gcs {

struct GcsOptions {
  std::string session_dir;               // database at <session_dir>/gcs.sqlite3
  std::string listen = "tcp://127.0.0.1:6379";  // port 0 or '*': any free port
  std::string token;                     // required on every request
  int64_t heartbeat_timeout_ms = 10000;  // Ray: "about ten seconds"
  std::string ready_file;                // written with the bound endpoint once serving
  // A database to start from when <session_dir>/gcs.sqlite3 does not exist yet (the
  // previous session of a head started again on its temp dir): copied, and its jobs
  // that had not ended are ended (exit code -1: their cluster stopped). "": none.
  std::string recover_from;
};

// Serves until `stop` becomes true (checked at least every 100 ms).
Status RunGcsServer(const GcsOptions& options, const std::atomic<bool>& stop);

}  // namespace ray::gcs
