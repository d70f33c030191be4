#pragma once
// The trial runner of `tune run`: the driver's loop that takes configs from a
// searcher, runs each as a trial in an actor of the cluster (as many at once as
// resources allow, reusing actors), feeds results to the scheduler, writes results
// and checkpoints under the experiment dir, recovers failed trials, and keeps
// experiment_state.json current so that an interrupted experiment can resume.
//
// It runs in a driver whose runtime is bound to the trainable's plugin
// (ray::internal::Api() set), and talks to trials through <ray/tune.h>'s actor.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/tune/search.h"
#include "runtime/tune/trial.h"
#include "runtime/tune/trial_logger.h"

namespace ray::tune {

class TuneServer;

// One experiment, with Ray's parameter names and defaults (tune.run).
struct ExperimentSpec {
  std::string name;       // the experiment dir under local_dir
  std::string trainable;  // registered name in the plugin
  Json config = Json::object();  // search space (see search.h)
  Json stop = Json::object();    // {"field": threshold}: stop once result[field] >= threshold
  int64_t num_samples = 1;
  // Per trial; empty: the trainable's DefaultResourceRequest, else {"CPU": 1}.
  // "extra_CPU"/"extra_GPU": held for the actors the trainable starts itself.
  std::map<std::string, double> resources_per_trial;
  int64_t checkpoint_freq = 0;  // iterations between checkpoints; 0: none
  bool checkpoint_at_end = false;
  int64_t keep_checkpoints_num = 0;  // 0: keep all
  std::string checkpoint_score_attr = "training_iteration";  // "min-" prefix: lower is better
  int64_t max_failures = 3;  // recoveries per trial (needs checkpoint_freq > 0); -1: no limit
  std::string restore;       // a checkpoint dir every trial starts from
  std::string local_dir;     // default ~/ray_results
  uint64_t seed = 0;
  std::string scheduler = "FIFO";
  Json scheduler_config = Json::object();
  std::string search_alg = "variant";  // or "tpe"
  Json search_config = Json::object();
  std::string metric;  // default for the scheduler's and searcher's "metric"
  std::string mode;    // "max" or "min", likewise
  int verbose = 2;     // 0 silent, 1 status tables, 2 also trial events
  bool reuse_actors = true;
  double status_interval_s = 2;  // between status tables
  // Where results go (trial_logger.h): json, csv, tensorboard, or logger plugins.
  std::vector<std::string> loggers = DefaultLoggers();

  Json ToJson() const;
  // Unknown keys or wrong types are InvalidArgument naming the key.
  static Result<ExperimentSpec> FromJson(const Json& j);
};

struct ExperimentOutcome {
  std::string dir;  // the experiment dir
  std::vector<Trial> trials;
  int errored = 0;  // trials that ended in ERROR
};

// Ray's resources_per_trial spelling ({"cpu": 1, "gpu": 0, "extra_cpu": 2,
// "Custom": 1}) as resources ({"CPU": 1, "extra_CPU": 2, "Custom": 1}); "cpu"
// defaults to 1. InvalidArgument names a bad entry.
Result<std::map<std::string, double>> ParseTrialResources(const Json& resources);

// A trainable's DefaultResourceRequest for a trial's resolved config (in Ray's
// spelling), or nullopt when it has none.
using ResourceRequestFn =
    std::function<Result<std::optional<Json>>(const std::string& trainable, const Json& config)>;

// The experiment dir of a spec: <local_dir or ~/ray_results>/<name or trainable>.
std::string ExperimentDir(const ExperimentSpec& spec);

// The spec stored in the experiment's dir by an earlier run, if there is one.
// DataLoss when the state file is unreadable.
Result<std::optional<ExperimentSpec>> StoredExperiment(const ExperimentSpec& spec);

// Runs (or with `resume`, continues) the experiment until every trial has ended.
// A resumed experiment keeps its stored spec, skips finished trials and restarts
// the others from their last checkpoint. A new run of an existing experiment adds
// its trials beside the earlier runs' (as Ray's results dirs accumulate); earlier
// trials that never finished are recorded as ERROR. Errors: a bad spec or search
// space, nothing to resume, an unwritable dir.
// With a `server`, the experiment answers Tune's Client API while it runs
// (tune_server.h): trials are listed, stopped and added by clients.
Result<ExperimentOutcome> RunExperiment(const ExperimentSpec& spec, bool resume,
                                        const SampleFromFn& sample_from,
                                        const ResourceRequestFn& resource_request = nullptr,
                                        TuneServer* server = nullptr);

}  // namespace ray::tune
