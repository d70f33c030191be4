#pragma once
// Experiments read back from disk (Ray Tune's ExperimentAnalysis), and the tables
// `tune list-trials` and `tune list-experiments` print.
//
// An experiment dir is either what `tune run` writes (experiment_state.json and one
// dir per trial, see trial.h) or only trial dirs, each holding params.json and
// result.json, as `rllib train` writes them. A project dir (DefaultLocalDir()) holds
// experiment dirs. Reading never modifies anything, so it is safe while an
// experiment runs: a half-written last line of result.json is skipped.

#include <optional>
#include <string>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/tune/trial.h"

namespace ray::tune {

enum class Mode { kMax, kMin };

// "max" or "min"; InvalidArgument otherwise.
Result<Mode> ParseMode(const std::string& mode);

// A trial as found on disk.
struct TrialRecord {
  // From experiment_state.json, with last_result refreshed from result.json (it is
  // written on every result, the state file at most once a second). For a trial
  // dir without a state file: id and config from its results and params.json,
  // trainable and tag from the dir name ("PPO_CartPole-v1_<date>"), status
  // kTerminated when the last result is done and kRunning otherwise.
  Trial trial;
  // ToString(trial.status). A trial dir without a state file has no recorded
  // status: TERMINATED when its last result is done, RUNNING while the process
  // that wrote it is alive on this host, UNKNOWN otherwise (interrupted, crashed,
  // or running elsewhere).
  std::string status;
  // Seconds since the epoch: the last result's "timestamp", else result.json's
  // modification time; 0 before the first result.
  double last_update_time = 0;
};

class ExperimentAnalysis {
 public:
  // NotFound when `experiment_dir` is not a directory; FailedPrecondition when it
  // holds neither experiment_state.json nor trial dirs; DataLoss when
  // experiment_state.json cannot be parsed.
  static Result<ExperimentAnalysis> Load(const std::string& experiment_dir);

  const std::string& dir() const { return dir_; }
  // The experiment's name: the state file's "name", else the dir's name.
  const std::string& name() const { return name_; }
  // The newest of the state file's "timestamp" and the trials' last updates, in
  // seconds since the epoch (0 if none).
  double last_updated() const { return last_updated_; }
  // In creation order (state file) or by dir name.
  const std::vector<TrialRecord>& trials() const { return trials_; }

  // The trial whose last result has the largest (kMax) or smallest (kMin) numeric
  // `metric`; the first such trial on ties. nullopt if no trial reported it.
  std::optional<TrialRecord> BestTrial(const std::string& metric, Mode mode) const;
  // The best trial's config.
  std::optional<Json> BestConfig(const std::string& metric, Mode mode) const;
  // The best trial's latest checkpoint dir; nullopt if it has none.
  std::optional<std::string> BestCheckpoint(const std::string& metric, Mode mode) const;
  // A trial's latest checkpoint dir (the checkpoint_<iteration>/ with the highest
  // iteration in its logdir, else trial.checkpoint if it exists); nullopt if none.
  static std::optional<std::string> BestCheckpoint(const Trial& trial);

 private:
  std::string dir_;
  std::string name_;
  double last_updated_ = 0;
  std::vector<TrialRecord> trials_;
};

// Cells are JSON values: numbers, strings, booleans; null is an empty cell.
struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<Json>> rows;
};

struct TrialColumns {
  // Any of trainable_name, experiment_tag, trial_id, status, last_update_time,
  // logdir, checkpoint, num_failures, error, or config/<key>[/<key>...].
  std::vector<std::string> info = {"trainable_name", "experiment_tag", "trial_id", "status",
                                   "last_update_time"};
  // Keys of the last result; "info/learner/kl" reaches into nested objects.
  std::vector<std::string> result = {"training_iteration", "time_total_s", "timesteps_total",
                                     "mean_accuracy", "mean_loss"};
};

// One row per trial; times as "YYYY-MM-DD HH:MM:SS" (local time). A result column
// named like an info column is left out. InvalidArgument for an unknown info column.
Result<Table> ListTrials(const ExperimentAnalysis& analysis, const TrialColumns& columns = {});

// Any of name, total_trials, pending_trials, running_trials, paused_trials,
// terminated_trials, error_trials, last_updated.
inline const std::vector<std::string> kExperimentColumns = {
    "name", "total_trials", "running_trials", "terminated_trials", "error_trials", "last_updated"};

// One row per experiment dir of `project_dir`, by name. Subdirs that are not
// experiments are skipped; those that fail to load are skipped and listed in
// `unreadable` ("<name>: <why>") when given. NotFound when `project_dir` is not a
// directory, InvalidArgument for an unknown column.
Result<Table> ListExperiments(const std::string& project_dir,
                              const std::vector<std::string>& columns = kExperimentColumns,
                              std::vector<std::string>* unreadable = nullptr);

// Keeps the rows where "COLUMN OP VALUE" holds, OP one of == != < <= > >=. Compares
// numerically when the cell is a number and VALUE parses as one, else as text; an
// empty cell only satisfies !=. InvalidArgument for a malformed expression or an
// unknown column.
Status FilterRows(Table& table, const std::string& expression);

// Stable sort by `column`: numbers before text, empty cells last either way.
// InvalidArgument for an unknown column.
Status SortRows(Table& table, const std::string& column, bool descending = false);

// Removes the columns whose cells are all empty; returns their names. A table
// without rows keeps its columns.
std::vector<std::string> DropEmptyColumns(Table& table);

// CSV (RFC 4180) with a header line; empty cells are empty fields.
std::string ToCsv(const Table& table);

// A bordered text table (psql style), numbers right-aligned. With `max_width` > 0,
// the first column that would make a line longer, and all after it, are left out
// and their names appended to `cut`.
std::string FormatTable(const Table& table, size_t max_width = 0,
                        std::vector<std::string>* cut = nullptr);

}  // namespace ray::tune
