#pragma once
// Running a job: load its plugin here, publish the plugin to the cluster (by
// content hash, through the GCS), connect to a raylet as the job's driver, run the
// plugin's RAY_MAIN, and disconnect (the raylet then frees the job's actors and
// objects). Worker output reaches this process's terminal while the job runs.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ray/abi.h"
#include "runtime/base/status.h"

namespace ray::worker {
class Plugin;
}

namespace ray::node {

// Where a job's driver finds its cluster: `address` (HOST:PORT or tcp://HOST:PORT of
// a GCS) and `token`, or, with an empty address, the newest node running under
// `temp_dir` (whose token file this user can read).
struct ClusterTarget {
  std::string gcs_address;    // tcp://host:port
  std::string token;
  std::string raylet_socket;  // this machine's node of that cluster, if any
};
Result<ClusterTarget> ResolveCluster(const std::string& address, const std::string& token,
                                     const std::string& temp_dir);

struct JobOptions {
  std::string plugin_path;
  std::vector<std::string> args;  // argv[1..] for RAY_MAIN; argv[0] is the plugin path
  std::string gcs_address;
  std::string token;
  std::string raylet_socket;  // empty: a node of this machine, found through the GCS
  // Where the job's named actors live and are looked up (Ray's namespace). Empty: an
  // anonymous namespace of the job's own, as in Ray 2.x.
  std::string ray_namespace;
  // The job's runtime environment, JSON as the user wrote it (runtime/api/
  // runtime_env.h; local paths): checked and shipped before the job starts. "": none.
  std::string runtime_env;
  // Actors that do not set their lifetime are detached (default_actor_lifetime).
  bool actors_detached = false;
};

// A job's driver connection, open between Start and Finish: the plugin is published
// to the cluster, the job recorded in the GCS, and this process connected to a raylet
// as the job's driver, with the runtime bound to the plugin (api()). Not thread-safe.
class DriverSession {
 public:
  // Attaches `plugin` (which must outlive the session) to the bound runtime.
  static Result<std::unique_ptr<DriverSession>> Start(const JobOptions& options,
                                                      worker::Plugin& plugin);
  ~DriverSession();  // Finish(0) if not finished
  const RayRuntimeApi* api() const;
  // Flushes the job's last worker output here, disconnects (the raylet then frees the
  // job's actors and objects) and records the job's exit code in the GCS.
  void Finish(int code);

 private:
  struct State;
  explicit DriverSession(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// The job's exit code, or an error if it could not run at all.
Result<int> RunJob(const JobOptions& options);

// Like RunJob, but the driver's work is `drive`, given the plugin (loaded in this
// process) and the runtime bound to it, instead of the plugin's RAY_MAIN: `tune
// run` drives the trials of a plugin that has no main. options.args is unused.
using DriveFn = std::function<int(worker::Plugin& plugin, const RayRuntimeApi* api)>;
Result<int> RunDriver(const JobOptions& options, const DriveFn& drive);

}  // namespace ray::node
