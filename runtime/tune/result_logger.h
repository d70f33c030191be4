#pragma once
// A trial's results on disk, laid out as Ray Tune writes them:
//
//   <local_dir>/<experiment>/<trial>/
//     params.json     the trial's config
//     result.json, progress.csv, events.out.tfevents.*, ...: the results, as the
//                     experiment's loggers write them (trial_logger.h)
//
// The trial's actor fills in the fields measured where the trainable runs
// (training_iteration, time_*, timesteps_total, pid, hostname, node_ip, ...; see
// <ray/tune.h>); Log() adds the driver's: trial_id, experiment_id, date, timestamp,
// done and config, unless the result sets them. Not thread-safe.

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/base/status.h"
#include "runtime/tune/trial_logger.h"

namespace ray::tune {

// ~/ray_results, or $TUNE_RESULT_DIR when set (as in Ray).
std::string DefaultLocalDir();

class ResultLogger {
 public:
  // Opens (appending to) the trial's files. An empty trial_id picks a random one.
  static Result<std::unique_ptr<ResultLogger>> Create(
      const std::string& trial_dir, const nlohmann::json& config,
      const std::string& experiment_id, const std::string& trial_id = "",
      const std::vector<std::string>& loggers = DefaultLoggers());
  // Adds the auto-filled fields and gives the result to every logger; returns the
  // completed result.
  Result<nlohmann::json> Log(nlohmann::json result);
  // A new config for the results that follow (PBT); params.json is rewritten and
  // the loggers told.
  Status SetConfig(const nlohmann::json& config);
  const std::string& dir() const { return dir_; }
  const std::string& trial_id() const { return trial_id_; }

 private:
  ResultLogger(std::string dir, nlohmann::json config, std::string experiment_id,
               std::string trial_id);

  std::string dir_;
  nlohmann::json config_;
  std::string trial_id_;
  std::string experiment_id_;
  std::vector<std::unique_ptr<TrialLogger>> loggers_;
};

// RLlib/Tune stop criteria: {"episode_reward_mean": 475, "training_iteration": 50}
// stops once any listed result field reaches its value. A key with slashes names a
// nested field, as Tune's flattened results do: "evaluation/episode_reward_mean".
bool ShouldStop(const nlohmann::json& stop, const nlohmann::json& result);

}  // namespace ray::tune
