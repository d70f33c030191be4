// `tune run` (also `ray tune run`): hyperparameter search over a plugin's
// trainables (see <ray/tune.h>), on a local cluster started for it or, with
// --address, on a running cluster. The experiments run in runtime/tune/tune_driver.

#include <memory>

#include "cli/commands.h"
#include "cli/common.h"
#include "runtime/tune/tune_driver.h"

namespace ray::cli {

namespace {

using tune::Json;

struct TuneRunOptions {
  std::string plugin;
  bool resume = false;
  bool with_server = false;
  int server_port = 4321;
  std::string address, token;
  LocalClusterFlags cluster;
  // -f and the experiment keys given on the command line (they win over -f).
  tune::ExperimentSources experiments;
};

void Run(const TuneRunOptions& o) {
  auto experiments = tune::BuildExperiments(o.experiments);
  if (!experiments.ok()) Fail("tune run", experiments.status());
  tune::DriveOptions drive_options;
  drive_options.plugin_path = o.plugin;
  drive_options.experiments = *experiments;
  drive_options.resume = o.resume;
  drive_options.with_server = o.with_server;
  drive_options.server_port = o.server_port;
  auto drive = [&](worker::Plugin& plugin, const RayRuntimeApi* api) {
    return tune::DriveExperiments(drive_options, plugin, api);
  };
  if (o.address.empty()) {
    DriveOnLocalCluster("tune run", o.cluster, o.plugin, drive,
                        [&](const node::JobOptions& job) { drive_options.token = job.token; });
    return;
  }
  ClusterFlags flags;
  flags.address = o.address;
  flags.token = o.token;
  flags.temp_dir = o.cluster.temp_dir;
  DriveOnCluster("tune run", flags, o.plugin, drive,
                 [&](const node::JobOptions& job) { drive_options.token = job.token; });
}

// An option whose value, when given, sets `key` of the experiment.
template <typename T>
void AddKey(CLI::App* cmd, TuneRunOptions& o, const std::string& flag, const std::string& key,
            const std::string& help) {
  cmd->add_option_function<T>(flag, [&o, key](const T& v) { o.experiments.given[key] = v; }, help);
}

void AddJsonKey(CLI::App* cmd, TuneRunOptions& o, const std::string& flag, const std::string& key,
                const std::string& help) {
  cmd->add_option_function<std::string>(flag, [&o, key, flag](const std::string& v) {
    Json j = Json::parse(v, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      throw CLI::ValidationError(flag, "must be a JSON object, got '" + v + "'");
    }
    o.experiments.given[key] = j;
  }, help);
}

}  // namespace

void AddTune(CLI::App& app) {
  auto* tune = app.add_subcommand("tune", "Run and inspect hyperparameter searches");
  tune->require_subcommand(1);

  auto o = std::make_shared<TuneRunOptions>();
  auto* run = tune->add_subcommand("run", "Run an experiment over a plugin's trainable");
  run->add_option("plugin", o->plugin, "a plugin .so registering trainables (<ray/tune.h>)")
      ->required()
      ->check(CLI::ExistingFile);
  run->add_option("-f,--config-file", o->experiments.file, "experiments in Tune's YAML format");
  AddKey<std::string>(run, *o, "--run", "trainable", "the trainable's registered name (default: the only one)");
  AddKey<std::string>(run, *o, "--name", "name", "the experiment's name (default: the trainable's)");
  AddJsonKey(run, *o, "--config", "config", "the search space, JSON (grid_search, choice, uniform, ...)");
  AddJsonKey(run, *o, "--stop", "stop", "stop criteria, JSON, e.g. '{\"training_iteration\": 10}'");
  AddKey<int64_t>(run, *o, "--num-samples", "num_samples", "samples of the search space (default 1)");
  AddJsonKey(run, *o, "--resources-per-trial", "resources_per_trial", "e.g. '{\"cpu\": 1, \"gpu\": 0}'");
  AddKey<int64_t>(run, *o, "--checkpoint-freq", "checkpoint_freq", "iterations between checkpoints (0: none)");
  run->add_flag_function("--checkpoint-at-end", [o](int64_t) { o->experiments.given["checkpoint_at_end"] = true; },
                         "checkpoint each trial when it ends");
  AddKey<int64_t>(run, *o, "--keep-checkpoints-num", "keep_checkpoints_num", "checkpoints kept per trial (default: all)");
  AddKey<std::string>(run, *o, "--checkpoint-score-attr", "checkpoint_score_attr",
                      "which checkpoints to keep (default training_iteration; min- prefix: lowest)");
  AddKey<int64_t>(run, *o, "--max-failures", "max_failures", "recoveries per trial from its last checkpoint (default 3, -1: no limit)");
  AddKey<std::string>(run, *o, "--restore", "restore", "a checkpoint dir every trial starts from");
  AddKey<std::string>(run, *o, "--local-dir", "local_dir", "results root (default ~/ray_results)");
  AddKey<uint64_t>(run, *o, "--seed", "seed", "seed of every random choice (default 0)");
  AddKey<std::string>(run, *o, "--scheduler", "scheduler", "FIFO, AsyncHyperBand, HyperBand, MedianStopping, PBT");
  AddJsonKey(run, *o, "--scheduler-config", "scheduler_config", "the scheduler's parameters, JSON");
  AddKey<std::string>(run, *o, "--search-alg", "search_alg", "variant (grid and random, default) or tpe");
  AddJsonKey(run, *o, "--search-config", "search_config", "the search algorithm's parameters, JSON");
  AddKey<std::string>(run, *o, "--metric", "metric", "the result field to optimise");
  AddKey<std::string>(run, *o, "--mode", "mode", "max or min");
  AddKey<int>(run, *o, "--verbose", "verbose", "0 silent, 1 status tables, 2 also trial events (default)");
  run->add_flag_function("--no-reuse-actors", [o](int64_t) { o->experiments.given["reuse_actors"] = false; },
                         "a new actor for every trial");
  run->add_flag("--resume", o->resume, "continue the experiment of this name where it stopped");
  run->add_flag("--server", o->with_server,
                "answer Tune's Client API (GET/PUT/POST /trials) while the experiments run");
  run->add_option("--server-port", o->server_port, "the Client API's port on 127.0.0.1 (default 4321; 0: any)")
      ->check(CLI::Range(0, 65535));
  run->add_option("--address", o->address, "run on this cluster (GCS HOST:PORT) instead of a local one");
  run->add_option("--token", o->token, "the cluster's token (with --address)");
  o->cluster.Add(run);
  run->callback([o] { Run(*o); });

  AddTuneList(*tune);
}

}  // namespace ray::cli
