#pragma once
// The Tune page's source: the experiments under a results dir (`tune run`'s and
// `rllib train`'s local_dir, ~/ray_results by default), read with
// tune::ExperimentAnalysis, and one trial's result rows for the charts. Reads only;
// safe while experiments run.

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/base/status.h"

namespace ray::dashboard {

// {"results_dir", "experiments": [{"name", "last_updated", "trials": [{"trial_id",
//   "trainable", "experiment_tag", "status", "config", "last_result",
//   "last_update_time", "num_failures", "error", "logdir", "tensorboard": whether
//   the logdir holds TensorBoard event files}]}]}, experiments by dir name.
// A missing results dir gives no experiments; dirs that are not experiments are
// skipped.
nlohmann::json TuneExperiments(const std::string& results_dir);

// {"experiment", "trial_id", "rows": [{"a/b": number, ...}]}: the trial's result.json,
// nested fields flattened to "a/b" and only numbers kept, the last `max_rows`.
// InvalidArgument for an experiment name that is not a plain dir name of results_dir,
// NotFound for an unknown experiment or trial.
Result<nlohmann::json> TrialResultRows(const std::string& results_dir,
                                       const std::string& experiment,
                                       const std::string& trial_id, size_t max_rows = 10000);

}  // namespace ray::dashboard
