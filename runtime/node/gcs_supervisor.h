#pragma once
// The GCS supervisor (`ray _gcs_supervisor`): the head's process that runs the GCS
// server (`ray _gcs`) as its child and starts it again whenever it exits, on the
// same address, so that raylets and drivers find it where they left it (a
// DaemonSupervisor, daemon_supervisor.h, as the dashboard's is). The server
// reloads the cluster's tables from <session_dir>/gcs.sqlite3 (see GcsService).
//
//   - The first start listens on `listen` (port 0: any); every later start on the
//     address the first one bound (read from <session_dir>/gcs.ready).
//   - If the first start exits before it serves, the supervisor exits with an error
//     (`ray start` reports it); later exits are restarted after RestartBackoff's wait.
//   - <session_dir>/gcs.pid holds the pid of the server running now.
//   - On `stop` (SIGTERM from `ray stop`) it restarts nothing more, stops the server
//     (SIGTERM, then SIGKILL after 2.5 s) and returns. The server gets SIGTERM if the
//     supervisor dies (PR_SET_PDEATHSIG).
// The server's output goes to logs/gcs.{out,err}, appended across restarts.

#include <atomic>
#include <cstdint>
#include <string>

#include "runtime/base/status.h"
#include "runtime/node/restart_backoff.h"

namespace ray::node {

struct GcsSupervisorOptions {
  std::string session_dir;
  std::string listen;                    // the first start's address
  int64_t heartbeat_timeout_ms = 10000;  // passed to the server
  std::string recover_from;              // passed to the first start (GcsOptions)
  RestartBackoffOptions backoff;
};

// Supervises until `stop` becomes true (checked every 20 ms).
Status RunGcsSupervisor(const GcsSupervisorOptions& options, const std::atomic<bool>& stop);

}  // namespace ray::node
