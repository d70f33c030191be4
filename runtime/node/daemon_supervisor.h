#pragma once
// DaemonSupervisor: runs one of the head's daemons as its child and starts it again
// whenever it exits, at the address its first start bound, so that its clients find
// it where they left it. The GCS (`ray _gcs_supervisor`, gcs_supervisor.h) and the
// dashboard (`ray _dashboard_supervisor`) run under one.
//
//   - The daemon writes <session_dir>/<name>.ready (its address) once it serves; the
//     supervisor removes that file before the first start and reads it afterwards.
//   - If the first start exits before it serves, Run returns an error naming the
//     daemon's log (`ray start` reports it); later exits are restarted after
//     RestartBackoff's wait.
//   - <session_dir>/<name>.pid holds the pid of the daemon running now.
//   - On `stop` (SIGTERM from `ray stop`) it restarts nothing more, stops the daemon
//     (SIGTERM, then SIGKILL after 2.5 s) and returns. The daemon gets SIGTERM if the
//     supervisor dies (PR_SET_PDEATHSIG).
// The daemon's output goes to logs/<name>.{out,err}, appended across restarts.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/node/restart_backoff.h"

namespace ray::node {

struct DaemonSupervisorOptions {
  std::string session_dir;
  std::string name;   // "gcs", "dashboard": names the ready, pid and log files
  std::string title;  // "the GCS", "the dashboard": for messages
  // The daemon's argv for start number `start` (0 first); `ready`: what the first
  // start wrote to its ready file ("" on the first start).
  std::function<std::vector<std::string>(int start, const std::string& ready)> argv;
  RestartBackoffOptions backoff;
};

// Supervises until `stop` becomes true (checked every 20 ms).
Status RunDaemonSupervisor(const DaemonSupervisorOptions& options, const std::atomic<bool>& stop);

}  // namespace ray::node
