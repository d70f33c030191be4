#pragma once
// A trial as the driver's trial runner keeps it: one sampled config of an
// experiment, run by one actor at a time. Schedulers and searchers see trials
// through this struct and the TrialRunner interface in scheduler.h.
//
// An experiment on disk, as `tune run` writes it and `tune ls` reads it:
//
//   <local_dir>/<name>/
//     experiment_state.json   the runner's state (rewritten atomically, at most
//                             once a second and at the end): {"name", "trainable",
//                             "timestamp", "experiment_id", "first_trial",
//                             "spec": {...the latest run...}, "searcher": {...},
//                             "trials": [Trial::ToJson()...]}; trials before
//                             first_trial come from earlier runs
//     <trainable>_<tag>_<trial_id>/   one dir per trial (Trial::logdir)
//       params.json  result.json  progress.csv  checkpoint_<iteration>/

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace ray::tune {

using Json = nlohmann::json;

enum class TrialStatus { kPending, kRunning, kPaused, kTerminated, kError };

// "PENDING", "RUNNING", "PAUSED", "TERMINATED", "ERROR" (Ray's names).
const char* ToString(TrialStatus s);
// The inverse; kPending for an unknown name.
TrialStatus TrialStatusFromString(const std::string& s);

struct Trial {
  std::string trial_id;        // 8 hex characters, unique in the experiment
  int index = 0;               // order of creation, 0-based
  std::string trainable;       // registered name
  std::string experiment_tag;  // "3_lr=0.1,momentum=0.9"
  Json config;                 // resolved: no search-space nodes left
  std::map<std::string, double> resources;  // per trial, e.g. {"CPU": 1}
  TrialStatus status = TrialStatus::kPending;
  std::string logdir;          // absolute path of the trial's dir
  Json last_result;            // null before the first result
  std::string checkpoint;      // latest checkpoint dir, "" if none
  int64_t checkpoint_iteration = 0;
  int num_failures = 0;
  std::string error;           // why it is in ERROR

  // A metric of the last result (nullopt when absent or not a number).
  std::optional<double> Metric(const std::string& key) const;

  Json ToJson() const;
  static Trial FromJson(const Json& j);
};

}  // namespace ray::tune
