#pragma once
// The driver of `tune run` (and of `rllib train`, whose training run is a Tune
// experiment over the algorithm plugin's trainable): experiments from Tune's YAML
// and the command line, run one after the other over the trainables of a plugin
// loaded in this driver process.
//
// The cluster the driver runs on is the caller's business (cli/ starts a local one
// or connects to --address); this module only needs the plugin and its runtime.
// Not thread-safe: one driver per process.

#include <string>
#include <vector>

#include "ray/abi.h"
#include "runtime/base/status.h"
#include "runtime/tune/runner.h"

namespace ray::worker {
class Plugin;
}

namespace ray::tune {

// What `tune run` was given, before the experiments are built.
struct ExperimentSources {
  std::string file;             // Tune's YAML ({name: {run, config, stop, ...}}); empty: none
  Json given = Json::object();  // spec keys from flags; they win over the file's
};

// The experiments to run: one per entry of `file` (its key the experiment's name,
// "run" the trainable), or one from `given` alone. InvalidArgument names the file,
// the experiment and the key at fault.
Result<std::vector<ExperimentSpec>> BuildExperiments(const ExperimentSources& sources);

struct DriveOptions {
  std::string command = "tune run";  // messages start with "ray <command>: "
  std::string plugin_path;           // named in messages
  std::vector<ExperimentSpec> experiments;
  bool resume = false;  // continue experiments of the same name where they stopped
  // Tune's Client API on 127.0.0.1:server_port (tune_server.h), checked against `token`.
  bool with_server = false;
  int server_port = 4321;
  std::string token;
};

// Runs the experiments over the trainables of `plugin` (loaded in this driver, whose
// runtime `api` is bound to it), one after the other; prints each one's best trial.
// An experiment without a trainable takes the plugin's only one. Returns the exit
// code: 1 if an experiment could not run or a trial errored (printed to stderr).
int DriveExperiments(const DriveOptions& options, worker::Plugin& plugin, const RayRuntimeApi* api);

// The CPUs one trial of `trainable` takes with `config` (its own and its extra
// CPUs), as the plugin's DefaultResourceRequest says: to size a local cluster.
// Loads the plugin in this process; needs no cluster.
Result<double> TrialCpus(const std::string& plugin_path, const std::string& trainable,
                         const Json& config);

}  // namespace ray::tune
