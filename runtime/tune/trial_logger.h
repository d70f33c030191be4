#pragma once
// Where a trial's completed results go (Ray Tune's loggers). An experiment's
// `loggers` names them; the default is all three built-in ones:
//
//   json         result.json, one JSON object per line
//   csv          progress.csv, the results flattened ("info/learner/kl"), header
//                from the first result (kept when appending to an earlier run's)
//   tensorboard  events.out.tfevents.*, every number as a scalar (tensorboard.h)
//
// Ray's class names (JsonLogger, CSVLogger, TBXLogger, TFLogger) name the same
// ones. Any other entry is the path of a logger plugin (<ray/tune_logger.h>).

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/base/status.h"

namespace ray::tune {

class TrialLogger {
 public:
  virtual ~TrialLogger() = default;
  virtual Status OnResult(const nlohmann::json& result) = 0;
  // The trial's config changed (PBT).
  virtual Status OnConfig(const nlohmann::json& /*config*/) { return Status::Ok(); }
};

std::vector<std::string> DefaultLoggers();

// InvalidArgument naming the entry: an unknown name, a plugin that cannot be
// loaded or speaks another ABI, or a list without json (resuming an experiment and
// `tune list-trials` read result.json).
Status CheckLoggers(const std::vector<std::string>& names);

// The loggers of one trial, writing under `trial_dir`.
Result<std::vector<std::unique_ptr<TrialLogger>>> MakeLoggers(
    const std::vector<std::string>& names, const std::string& trial_dir,
    const nlohmann::json& config);

}  // namespace ray::tune
