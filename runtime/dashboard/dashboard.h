#pragma once
// The web dashboard of a cluster (`ray start --head` runs it as `ray _dashboard`, a
// process of its own beside the GCS): HTML pages and the JSON API behind them
// (api.h), over HTTP with cpp-httplib, on loopback by default.
//
// Threads: httplib's pool answers requests, each with its own GCS client, so a slow
// query holds up only its own request; the calling thread (RunDashboard) reads the
// node table every second for the utilisation chart and reports the dashboard's URL
// to the GCS every 5 s (ray::GetWebuiUrl; again after a GCS restart). Neither the
// GCS's nor a raylet's event loop runs any of this: the GCS sees only ordinary client
// requests.
//
// Every request needs the cluster token (auth.h); without it pages answer 401 with a
// login form, and the API 401 with a JSON error. The token is never logged nor
// written anywhere by this process.

#include <atomic>
#include <optional>
#include <string>

#include "runtime/base/status.h"

namespace ray::dashboard {

struct DashboardOptions {
  std::string session_dir;   // its logs/ are served; ready file written here
  std::string gcs_address;   // tcp://host:port
  std::string token;         // the cluster token
  std::string host = "127.0.0.1";
  int port = 8265;           // Ray's default; 0: any free port
  // The host in the URL others are given when `host` is a wildcard (0.0.0.0, ::);
  // "": `host`.
  std::string advertise_host;
  // The pages, scripts and vendored libraries (share/ray/dashboard); "": beside the
  // executable, <bin>/../share/ray/dashboard.
  std::string assets_dir;
  std::string results_dir;   // Tune experiments; "": tune::DefaultLocalDir()
  std::string ready_file;    // written with the URL (no token) once serving
};

// The URL the dashboard serves on, e.g. "http://127.0.0.1:8265".
std::string DashboardUrl(const std::string& host, int port);
// The port of such a URL (what the dashboard's supervisor binds again after a
// restart); nullopt if `url` does not end in ":<port>".
std::optional<int> PortOfUrl(const std::string& url);

// Serves until `stop` becomes true (checked every 100 ms). Unavailable when the
// address cannot be bound.
Status RunDashboard(const DashboardOptions& options, const std::atomic<bool>& stop);

// `ray _dashboard_supervisor`, what `ray start --head` runs: `ray _dashboard` with
// these options (session_dir, gcs_address, host, port, advertise_host) as its child,
// started again whenever it exits, on the port its first start bound
// (runtime/node/daemon_supervisor.h: backoff, dashboard.pid, stop). Fails if the
// first start exits before it serves.
Status RunDashboardSupervisor(const DashboardOptions& options, const std::atomic<bool>& stop);

}  // namespace ray::dashboard
