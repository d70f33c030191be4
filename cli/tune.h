#pragma once
// The driver side of `tune run`, shared with `rllib train` (an RLlib training run is
// a Tune experiment over the algorithm plugin's trainable).

#include <string>
#include <vector>

#include "ray/abi.h"
#include "runtime/tune/runner.h"

namespace ray::worker {
class Plugin;
}

namespace ray::cli {

// Runs the experiments over the trainables of `plugin` (loaded in this driver, whose
// runtime `api` is bound to it), one after the other; prints each one's best trial.
// Returns the exit code: 1 if an experiment could not run or a trial errored.
// Messages start with "ray <command>: ".
int DriveExperiments(const std::string& command, const std::string& plugin_path,
                     std::vector<tune::ExperimentSpec> experiments, bool resume,
                     worker::Plugin& plugin, const RayRuntimeApi* api);

// The CPUs one trial of `trainable` takes with `config` (its own and its extra
// CPUs), as the plugin's DefaultResourceRequest says: to size a local cluster.
Result<double> TrialCpus(const std::string& plugin_path, const std::string& trainable,
                         const tune::Json& config);

}  // namespace ray::cli
