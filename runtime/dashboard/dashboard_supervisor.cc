// RunDashboardSupervisor (dashboard.h): the dashboard under a DaemonSupervisor.

#include "runtime/base/util.h"
#include "runtime/dashboard/dashboard.h"
#include "runtime/node/daemon_supervisor.h"

namespace ray::dashboard {

Status RunDashboardSupervisor(const DashboardOptions& o, const std::atomic<bool>& stop) {
  node::DaemonSupervisorOptions s;
  s.session_dir = o.session_dir;
  s.name = "dashboard";
  s.title = "the dashboard";
  // Later starts bind the port the first one did (port 0: whichever it got).
  s.argv = [&o](int start, const std::string& ready) {
    int port = start == 0 ? o.port : PortOfUrl(ready).value_or(o.port);
    std::vector<std::string> argv = {SelfExecutable(), "_dashboard", "--session-dir",
                                     o.session_dir,    "--gcs-address", o.gcs_address,
                                     "--host",         o.host,          "--port",
                                     std::to_string(port)};
    if (!o.advertise_host.empty()) argv.insert(argv.end(), {"--advertise-host", o.advertise_host});
    return argv;
  };
  return node::RunDaemonSupervisor(s, stop);
}

}  // namespace ray::dashboard
