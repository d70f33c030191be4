#pragma once
// The autoscaler: `ray _monitor`, started by `ray start --head --autoscaling-config`
// beside the GCS, logging to <session>/logs/monitor.{out,err}.
//
// Every update interval it reads the cluster config again (a bad edit is logged
// and the last good config kept), lists the provider's worker nodes, reads every
// node's resources and waiting work from the GCS, and lets the policy
// (runtime/scheduler/autoscaling_policy.h) decide: it launches nodes (and sets them
// up with a NodeUpdater over ssh, one thread each, unless the provider starts them
// itself) and terminates idle, outdated, failed and surplus ones (ray stopped over
// ssh first). Provider or GCS errors are logged and retried with a growing pause;
// the monitor never exits on them. Its view goes to the GCS every update, for
// `ray status`; raylets hold work no node fits while it reports.

#include <atomic>
#include <string>

#include "runtime/base/status.h"

namespace ray::cluster {

struct MonitorOptions {
  std::string session_dir;  // the head's session
  std::string gcs_address;  // tcp://ip:port
  std::string token;
  std::string config_path;  // the cluster config (~/ray_bootstrap_config.yaml)
  double update_interval_s = 5;  // Ray's; $AUTOSCALER_UPDATE_INTERVAL_S overrides
};

// Runs until `stop`. Fails only if the config cannot be read at the start.
Status RunMonitor(const MonitorOptions& options, const std::atomic<bool>& stop);

}  // namespace ray::cluster
