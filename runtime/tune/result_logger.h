#pragma once
// A trial's results on disk, laid out as Ray Tune writes them:
//
//   <local_dir>/<experiment>/<trial>/
//     params.json     the trial's config
//     result.json     one JSON object per line, one line per reported result
//     progress.csv    the same results, flattened ("info/learner/kl"), header from
//                     the first result
//
// Log() fills in the fields Tune adds to every result (date, timestamp, hostname,
// node_ip, pid, time_this_iter_s, time_total_s, training_iteration, trial_id,
// experiment_id, done, config) unless the result sets them. Not thread-safe.

#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/base/status.h"

namespace ray::tune {

// ~/ray_results, or $TUNE_RESULT_DIR when set (as in Ray).
std::string DefaultLocalDir();

// "<trainable>_<env or tag>_<date>": a trial dir name unique to the second.
std::string TrialName(const std::string& trainable, const std::string& tag);

class ResultLogger {
 public:
  // Opens (appending to) the trial's files. An empty trial_id picks a random one.
  static Result<std::unique_ptr<ResultLogger>> Create(const std::string& trial_dir,
                                                      const nlohmann::json& config,
                                                      const std::string& experiment_id,
                                                      const std::string& trial_id = "");
  // Adds the auto-filled fields and appends the result to result.json and
  // progress.csv; returns the completed result.
  Result<nlohmann::json> Log(nlohmann::json result);
  // A new config for the results that follow (PBT); params.json is rewritten.
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
  std::ofstream json_;
  std::ofstream csv_;
  std::vector<std::string> csv_columns_;
  std::chrono::steady_clock::time_point start_, last_;
  int64_t iteration_ = 0;
};

// RLlib/Tune stop criteria: {"episode_reward_mean": 475, "training_iteration": 50}
// stops once any listed result field reaches its value.
bool ShouldStop(const nlohmann::json& stop, const nlohmann::json& result);

}  // namespace ray::tune
