#pragma once
// Starting and stopping a node's daemons (`ray start`, `ray stop`, `ray run`), and
// the session directory they share:
//
//   <temp_dir>/session_<%Y-%m-%d_%H-%M-%S_%f>_<pid>/
//     logs/      gcs.out|err, raylet.out|err, worker-<id>.out|err
//     sockets/   raylet (ipc), mode 0700 (or /tmp/ray-sockets-<uid>/ when the
//                path would exceed the 107-byte limit of a Unix socket)
//     plugins/   plugin libraries by content hash
//     gcs.sqlite3, token (0600), node.json (what `ray stop` needs),
//     gcs.ready (the GCS's address), gcs.pid (the GCS server running now),
//     dashboard.ready (the dashboard's URL), dashboard.pid (the dashboard running now)
//   <temp_dir>/session_latest -> the newest session

#include <map>
#include <string>
#include <vector>

#include "runtime/base/status.h"

namespace ray::node {

struct NodeOptions {
  std::string temp_dir = "/tmp/ray";
  int port = 6379;  // GCS port on the head; 0: any free port
  std::string node_ip = "127.0.0.1";
  std::map<std::string, double> resources;  // must include CPU
  size_t object_store_memory = 0;           // 0: 30% of RAM, at most 20 GiB
  bool die_with_parent = false;             // embedded clusters (`ray run`)
  // The `ray` program whose daemons (`ray _gcs`, `ray _raylet`) the node runs; "":
  // this process's own executable (the CLI). A program of the user's own that starts
  // a cluster (ray::Init) names it.
  std::string ray_executable;
  int heartbeat_ms = 250;
  int64_t heartbeat_timeout_ms = 10000;
  std::string token;  // head: the cluster token to use; "": a new random one
  // Head: a cluster config (`ray up`'s bootstrap config); non-empty starts the
  // autoscaler (`ray _monitor`) beside the GCS, logging to logs/monitor.{out,err}.
  std::string autoscaling_config;
  // Head: its tables outlive it. It takes over those of the last session under
  // temp_dir if that was a head with persistent tables that has stopped (see
  // StartHead), and a later such head takes over its own. `ray start --head` sets it;
  // clusters embedded in a command (`ray run`) leave it off and start empty.
  bool persistent_tables = false;
  // Head: the web dashboard (`ray _dashboard`, logs/dashboard.{out,err}) on
  // dashboard_host:dashboard_port (0: any free port). `ray start --head` turns it on.
  bool include_webui = false;
  std::string dashboard_host = "127.0.0.1";
  int dashboard_port = 8265;  // Ray's
};

// What a started node is, as recorded in <session>/node.json.
struct NodeRecord {
  std::string session_dir;
  std::string gcs_address;    // tcp://ip:port
  std::string raylet_socket;  // ipc://...
  std::string token;
  int gcs_pid = 0;  // the head's GCS supervisor (gcs.pid: the server it runs now)
  int raylet_pid = 0;
  int monitor_pid = 0;  // the autoscaler, on an autoscaling head
  int dashboard_pid = 0;  // its supervisor (dashboard.pid: the server it runs now)
  std::string dashboard_url;  // http://host:port, "" without a dashboard
  // StartHead: why the dashboard did not start ("": it did, or was not asked for);
  // the head runs without it. Not recorded in node.json.
  std::string dashboard_error;
  bool persistent_tables = false;  // see NodeOptions
  // StartHead: the stopped head session whose tables (gcs.sqlite3) and token this
  // one took over ("": none). Not recorded in node.json.
  std::string recovered_from;
};

// The root of session dirs: $RAY_TMPDIR if set (as in Ray), else /tmp/ray.
std::string DefaultTempDir();

// CPUs on this machine and the default object store size.
int DetectCpus();
size_t DefaultObjectStoreBytes();

// Starts a head node (GCS + raylet) and waits until both serve. On failure nothing
// is left running and the error names the log to read. The GCS runs under a
// supervisor that starts it again if it dies (see gcs_supervisor.h). With
// persistent_tables, if the last session under temp_dir was a head with persistent
// tables that has stopped, the new head takes over its tables (a copy of its gcs.sqlite3: jobs, named and detached actors' records,
// plugins, task events, nodes) and, unless options.token is set, its token.
Result<NodeRecord> StartHead(const NodeOptions& options);
// Starts a raylet that joins the cluster whose GCS is at `head_address`
// (tcp://host:port), presenting `token`. PermissionDenied if the head refuses it.
Result<NodeRecord> JoinCluster(const NodeOptions& options, const std::string& head_address,
                               const std::string& token);
// Stops the node's processes (only those it recorded), removes its sockets and
// shared-memory segments. Logs and the database stay.
Status StopNode(const NodeRecord& node);
// Nodes recorded under temp_dir whose processes are still running.
std::vector<NodeRecord> RunningNodes(const std::string& temp_dir);
Result<NodeRecord> ReadNodeRecord(const std::string& session_dir);

}  // namespace ray::node
