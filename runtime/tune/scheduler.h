#pragma once
// Trial schedulers (Ray Tune's TrialScheduler): they see every result and decide
// whether a trial continues, pauses or stops, and which pending or paused trial
// runs next. Built-ins: FIFO, AsyncHyperBand (ASHA), HyperBand, MedianStopping,
// PopulationBasedTraining, with Ray's parameters and defaults.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/tune/trial.h"

namespace ray::tune {

enum class Decision { kContinue, kPause, kStop };

// What a scheduler may ask of the runner that drives it.
class TrialRunner {
 public:
  virtual ~TrialRunner() = default;
  // Every trial of the experiment, in creation order.
  virtual std::vector<Trial*> Trials() = 0;
  // Whether the cluster has room to start this trial now.
  virtual bool HasResources(const Trial& trial) = 0;
  // Saves a checkpoint of a running trial now (blocking); returns its dir.
  virtual Result<std::string> SaveCheckpoint(Trial& trial) = 0;
  // Ends a PAUSED or PENDING trial (one holding no actor) as TERMINATED without
  // running it further; the searcher learns that it ended early.
  virtual void StopTrial(Trial& trial) = 0;
  // Gives a trial a new config (and tag) and restores it from `checkpoint` (a dir
  // of any trial) before its next step. PBT's exploit-and-explore.
  virtual Status ResetTrial(Trial& trial, Json new_config, std::string new_tag,
                            const std::string& checkpoint) = 0;
};

class TrialScheduler {
 public:
  virtual ~TrialScheduler() = default;
  virtual void OnTrialAdd(TrialRunner& runner, Trial& trial) {}
  virtual void OnTrialError(TrialRunner& runner, Trial& trial) {}
  // A RUNNING trial reported `result` (already holding the auto-filled fields).
  virtual Decision OnTrialResult(TrialRunner& runner, Trial& trial, const Json& result) = 0;
  // A RUNNING trial finished by itself or by a stop criterion.
  virtual void OnTrialComplete(TrialRunner& runner, Trial& trial, const Json& result) {}
  // A PENDING or PAUSED trial was removed (stopped without running to the end).
  virtual void OnTrialRemove(TrialRunner& runner, Trial& trial) {}
  // The PENDING or PAUSED trial to start or resume next, or nullptr. The default
  // (FIFO) is the first one in creation order the cluster has room for.
  virtual Trial* ChooseTrialToRun(TrialRunner& runner);
  // One or more lines for the status table ("Using FIFO scheduling algorithm.").
  virtual std::string DebugString() const = 0;
};

// Ray's scheduler names: "FIFO", "AsyncHyperBand" (or "ASHA"), "HyperBand",
// "MedianStopping", "PBT" (or "PopulationBasedTraining"). `config` holds the
// constructor's keyword arguments (time_attr, metric, mode, max_t, grace_period,
// reduction_factor, brackets, perturbation_interval, hyperparam_mutations,
// quantile_fraction, resample_probability, min_samples_required, hard_stop, ...);
// unknown keys and bad values are InvalidArgument naming the key. `seed` drives
// every random choice (PBT, bracket sampling), so runs are reproducible.
Result<std::unique_ptr<TrialScheduler>> MakeScheduler(const std::string& name, const Json& config,
                                                      uint64_t seed);

}  // namespace ray::tune
