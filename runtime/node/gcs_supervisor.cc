#include "runtime/node/gcs_supervisor.h"

#include "runtime/base/util.h"
#include "runtime/node/daemon_supervisor.h"

namespace ray::node {

Status RunGcsSupervisor(const GcsSupervisorOptions& o, const std::atomic<bool>& stop) {
  DaemonSupervisorOptions d;
  d.session_dir = o.session_dir;
  d.name = "gcs";
  d.title = "the GCS";
  d.backoff = o.backoff;
  // The first start listens on o.listen; later ones where the first one bound.
  d.argv = [&o](int start, const std::string& ready) {
    std::vector<std::string> argv = {SelfExecutable(), "_gcs", "--session-dir", o.session_dir,
                                     "--listen", start == 0 ? o.listen : ready,
                                     "--heartbeat-timeout-ms",
                                     std::to_string(o.heartbeat_timeout_ms)};
    if (!o.recover_from.empty() && start == 0) {
      argv.insert(argv.end(), {"--recover-from", o.recover_from});
    }
    return argv;
  };
  return RunDaemonSupervisor(d, stop);
}

}  // namespace ray::node
