#pragma once
// The cluster launcher: what `ray up`, `down`, `exec`, `attach`, `submit CFG`,
// `rsync-up/down`, `get-head-ip` and `get-worker-ips` do, from a cluster YAML.
//
// `Up` creates or updates the head (over ssh, or on this machine for
// fake_multinode) and starts ray there with the autoscaler, which brings the
// workers up. The cluster's token is made on the first `Up` and kept, mode 0600, in
// ~/.ray/clusters/<name>.token; it reaches every node as ~/.ray/cluster_token and
// never appears on a command line. Every step prints its progress; every wait has
// a deadline. Nothing here reads the terminal: confirmations go through `Console`.

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/base/status.h"

namespace ray::cluster {

struct Console {
  std::function<void(const std::string& line)> print;
  // Asks to go on ("This will destroy your cluster"); false stops with Cancelled.
  std::function<bool(const std::string& question)> confirm;
};

struct LaunchTarget {
  std::string config_file;
  std::string cluster_name;  // -n: overrides the YAML's
};

struct UpOptions {
  LaunchTarget target;
  std::optional<int> min_workers;  // override the YAML's
  std::optional<int> max_workers;
  bool no_restart = false;    // set up, but leave ray running
  bool restart_only = false;  // skip the setup; restart ray
};
Status Up(const UpOptions& options, const Console& console);
// `ray up -y` of `target` with its YAML as it is (exec/submit/attach --start).
Status UpAsItIs(const LaunchTarget& target, const Console& console);

struct DownOptions {
  LaunchTarget target;
  bool workers_only = false;
};
// Stops ray on the head (its autoscaler first), then on every worker, and releases
// the nodes. Goes on past unreachable hosts, then fails naming them.
Status Down(const DownOptions& options, const Console& console);

struct ExecOptions {
  LaunchTarget target;
  std::string command;
  bool start = false;  // `ray up -y` first
  bool stop = false;   // `ray down -y` after
  bool tmux = false;   // run in a detached tmux session on the head
  bool screen = false;
  bool attached = false;  // a terminal: the command gets a tty (ssh -tt)
  std::vector<int> ports;  // forwarded from the head to the same local ports
};
// Runs the command on the head, its output streamed; returns its exit code.
Result<int> Exec(const ExecOptions& options, const Console& console);

// Copies `plugin` to the head's home and runs it there with `ray submit`.
Result<int> Submit(const ExecOptions& options, const std::string& plugin,
                   const std::vector<std::string>& args, const Console& console);

// The argv of an interactive shell on the head (for `ray attach` to exec).
Result<std::vector<std::string>> AttachArgv(const LaunchTarget& target, bool tmux, bool screen,
                                            bool new_session, const std::vector<int>& ports);

// `ray dashboard`: how to reach the head's dashboard from here.
struct DashboardForward {
  // Runs the forward of 127.0.0.1:local_port to the dashboard's port on the head
  // until stopped; empty: the head is this machine (no forward needed).
  std::vector<std::string> argv;
  std::string head;   // the head, for messages
  std::string token;  // the cluster's token (the dashboard's login)
};
Result<DashboardForward> DashboardForwardOf(const LaunchTarget& target, int local_port,
                                            int remote_port);
// `ray dashboard`: runs that forward (the local port must be free), prints the link
// with the token once the local port answers (within 20 s), and keeps it until
// `stop` (Ok) or until ssh exits (Unavailable). A head that is this machine: prints
// the link to its own port and returns.
Status ForwardDashboard(const LaunchTarget& target, int local_port, int remote_port,
                        const Console& console, const std::atomic<bool>& stop);

// Copies between here and the head. Both paths empty: every file mount.
Status RsyncUp(const LaunchTarget& target, const std::string& source, const std::string& dest,
               const Console& console);
Status RsyncDown(const LaunchTarget& target, const std::string& source,
                 const std::string& dest, const Console& console);

Result<std::string> HeadIp(const LaunchTarget& target);
Result<std::vector<std::string>> WorkerIps(const LaunchTarget& target);

}  // namespace ray::cluster
