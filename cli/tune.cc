// `tune run` (also `ray tune run`): hyperparameter search over a plugin's
// trainables (see <ray/tune.h>), on a local cluster started for it or, with
// --address, on a running cluster.

#include <ray/api.h>
#include <ray/tune.h>

#include <cstdio>

#include "cli/commands.h"
#include "cli/common.h"
#include "runtime/base/yaml.h"
#include "cli/tune.h"
#include "runtime/tune/analysis.h"
#include "runtime/tune/runner.h"
#include "runtime/worker/plugin.h"

namespace ray::cli {

namespace {

using tune::ExperimentSpec;
using tune::Json;
namespace ri = ray::internal;

struct TuneRunOptions {
  std::string plugin;
  std::string file;
  bool resume = false;
  std::string address, token;
  LocalClusterFlags cluster;
  // Experiment keys given on the command line (they win over -f), by spec key.
  Json given = Json::object();
};

// Calls a function the plugin registered, in this process.
Result<std::string> CallPlugin(worker::Plugin& plugin, const std::string& name,
                               const std::vector<std::string>& packed_args) {
  std::vector<RayArg> args;
  for (const auto& a : packed_args) args.push_back({a.data(), a.size(), nullptr});
  RayResult r = plugin.Invoke(name, nullptr, args.data(), args.size());
  std::string bytes(r.data, r.size);
  int kind = r.kind;
  r.free_fn(r.data);
  if (kind == RAY_OBJECT_ERROR) {
    return Status::InvalidArgument(ri::Unpack<ri::ErrorInfo>(bytes.data(), bytes.size()).message);
  }
  return bytes;
}

// The trainable's DefaultResourceRequest for a config (nullopt: it has none).
Result<std::optional<Json>> RequestResources(worker::Plugin& plugin, const std::string& trainable,
                                             const Json& config) {
  RAY_ASSIGN_OR_RETURN(std::string out, CallPlugin(plugin, tune::internal::kResourceRequest,
                                                   {ri::Pack(trainable), ri::Pack(config.dump())}));
  Json j = Json::parse(ri::Unpack<std::string>(out.data(), out.size()));
  return j.is_null() ? std::optional<Json>() : std::optional<Json>(std::move(j));
}

// The experiments to run: from -f (Ray's {name: {run, config, stop, ...}}) or from
// the flags alone, with the flags winning.
std::vector<ExperimentSpec> Experiments(const TuneRunOptions& o) {
  const std::string cmd = "tune run";
  std::vector<Json> raw;
  if (!o.file.empty()) {
    auto doc = LoadYamlFile(o.file);
    if (!doc.ok()) Fail(cmd, doc.status());
    if (!doc->is_object() || doc->empty()) {
      Fail(cmd, Status::InvalidArgument(o.file + ": expected a mapping of experiment names"));
    }
    for (auto it = doc->begin(); it != doc->end(); ++it) {
      if (!it->is_object()) Fail(cmd, Status::InvalidArgument(o.file + ": " + it.key() + " is not a mapping"));
      Json e = *it;
      e["name"] = it.key();
      if (e.contains("run")) {
        e["trainable"] = e["run"];
        e.erase("run");
      }
      raw.push_back(e);
    }
  } else {
    raw.push_back(Json::object());
  }
  std::vector<ExperimentSpec> out;
  for (Json e : raw) {
    std::string where = o.file.empty() ? "" : o.file + ": " + e.value("name", "") + ".";
    e.update(o.given);
    if (e.contains("resources_per_trial")) {
      auto r = tune::ParseTrialResources(e["resources_per_trial"]);
      if (!r.ok()) Fail(cmd, Status::InvalidArgument(where + r.status().message()));
      e["resources_per_trial"] = *r;
    }
    auto spec = ExperimentSpec::FromJson(e);
    if (!spec.ok()) Fail(cmd, Status::InvalidArgument(where + spec.status().message()));
    for (const auto& [key, value] : {std::pair{"config", &spec->config}, std::pair{"stop", &spec->stop}}) {
      if (!value->is_object()) Fail(cmd, Status::InvalidArgument(where + key + " must be a JSON object"));
    }
    if (spec->mode != "" && spec->mode != "max" && spec->mode != "min") {
      Fail(cmd, Status::InvalidArgument(where + "mode must be max or min"));
    }
    out.push_back(std::move(*spec));
  }
  return out;
}

// The best trial of a finished experiment, by the metric the experiment optimised.
void PrintBest(const ExperimentSpec& spec, const std::string& dir) {
  std::string metric = spec.metric.empty() ? spec.scheduler_config.value("metric", "") : spec.metric;
  std::string mode = spec.mode.empty() ? spec.scheduler_config.value("mode", "max") : spec.mode;
  if (metric.empty()) return;
  auto analysis = tune::ExperimentAnalysis::Load(dir);
  if (!analysis.ok()) return;
  auto best = analysis->BestTrial(metric, mode == "min" ? tune::Mode::kMin : tune::Mode::kMax);
  if (!best) return;
  std::printf("Best trial %s: %s=%s, config %s\n", best->trial.experiment_tag.c_str(),
              metric.c_str(), best->trial.last_result[metric].dump().c_str(),
              best->trial.config.dump().c_str());
  if (auto ckpt = tune::ExperimentAnalysis::BestCheckpoint(best->trial)) {
    std::printf("Best checkpoint: %s\n", ckpt->c_str());
  }
}

void Run(const TuneRunOptions& o) {
  auto experiments = Experiments(o);
  auto drive = [&](worker::Plugin& plugin, const RayRuntimeApi* api) {
    return DriveExperiments("tune run", o.plugin, experiments, o.resume, plugin, api);
  };
  if (o.address.empty()) {
    DriveOnLocalCluster("tune run", o.cluster, o.plugin, drive);
    return;
  }
  ClusterFlags flags;
  flags.address = o.address;
  flags.token = o.token;
  flags.temp_dir = o.cluster.temp_dir;
  auto target = ResolveCluster(flags);
  if (!target.ok()) Fail("tune run", target.status());
  auto code = node::RunDriver({o.plugin, {}, target->gcs_address, target->token,
                               target->raylet_socket}, drive);
  if (!code.ok()) Fail("tune run", code.status());
  if (*code != 0) throw Exit{*code};
}

// An option whose value, when given, sets `key` of the experiment.
template <typename T>
void AddKey(CLI::App* cmd, TuneRunOptions& o, const std::string& flag, const std::string& key,
            const std::string& help) {
  cmd->add_option_function<T>(flag, [&o, key](const T& v) { o.given[key] = v; }, help);
}

void AddJsonKey(CLI::App* cmd, TuneRunOptions& o, const std::string& flag, const std::string& key,
                const std::string& help) {
  cmd->add_option_function<std::string>(flag, [&o, key, flag](const std::string& v) {
    Json j = Json::parse(v, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      throw CLI::ValidationError(flag, "must be a JSON object, got '" + v + "'");
    }
    o.given[key] = j;
  }, help);
}

}  // namespace

int DriveExperiments(const std::string& command, const std::string& plugin_path,
                     std::vector<ExperimentSpec> experiments, bool resume, worker::Plugin& plugin,
                     const RayRuntimeApi* api) {
  const std::string prefix = "ray " + command + ": ";
  ri::Api() = api;
  auto listed = CallPlugin(plugin, tune::internal::kTrainables, {});
  if (!listed.ok()) {
    std::fprintf(stderr, "%s%s registers no trainable (use RAY_TUNE_TRAINABLE or "
                 "RAY_TUNE_FUNCTION from <ray/tune.h>)\n", prefix.c_str(), plugin_path.c_str());
    return 1;
  }
  auto names = ri::Unpack<std::vector<std::string>>(listed->data(), listed->size());
  tune::SampleFromFn sample_from = [&](const std::string& name, const Json& config) -> Result<Json> {
    RAY_ASSIGN_OR_RETURN(std::string out, CallPlugin(plugin, tune::internal::kSampleFrom,
                                                     {ri::Pack(name), ri::Pack(config.dump())}));
    return Json::parse(ri::Unpack<std::string>(out.data(), out.size()));
  };
  tune::ResourceRequestFn resource_request = [&](const std::string& trainable, const Json& config) {
    return RequestResources(plugin, trainable, config);
  };
  int code = 0;
  for (auto& spec : experiments) {
    if (spec.trainable.empty() && names.size() == 1) spec.trainable = names[0];
    if (resume) {
      auto stored = tune::StoredExperiment(spec);
      if (!stored.ok()) {
        std::fprintf(stderr, "%s%s\n", prefix.c_str(), stored.status().message().c_str());
        return 1;
      }
      if (*stored) spec = **stored;
    }
    if (std::find(names.begin(), names.end(), spec.trainable) == names.end()) {
      std::string known;
      for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
      std::fprintf(stderr, "%s%s: %s (its trainables: %s)\n", prefix.c_str(), plugin_path.c_str(),
                   spec.trainable.empty() ? "choose a trainable with --run"
                                          : ("no trainable named '" + spec.trainable + "'").c_str(),
                   known.c_str());
      return 1;
    }
    auto outcome = tune::RunExperiment(spec, resume, sample_from, resource_request);
    if (!outcome.ok()) {
      std::fprintf(stderr, "%s%s\n", prefix.c_str(), outcome.status().message().c_str());
      return 1;
    }
    PrintBest(spec, outcome->dir);
    if (outcome->errored > 0) {
      std::fprintf(stderr, "%s%d of %zu trials errored:\n", prefix.c_str(), outcome->errored,
                   outcome->trials.size());
      for (const auto& t : outcome->trials) {
        if (t.status == tune::TrialStatus::kError) {
          std::fprintf(stderr, "  %s (%s): %s\n", t.experiment_tag.c_str(), t.logdir.c_str(),
                       t.error.c_str());
        }
      }
      code = 1;
    }
  }
  return code;
}

Result<double> TrialCpus(const std::string& plugin_path, const std::string& trainable,
                         const Json& config) {
  RAY_ASSIGN_OR_RETURN(auto plugin, worker::Plugin::Load(plugin_path));
  RAY_ASSIGN_OR_RETURN(auto request, RequestResources(*plugin, trainable, config));
  RAY_ASSIGN_OR_RETURN(auto resources, tune::ParseTrialResources(request.value_or(Json::object())));
  return resources["CPU"] + resources["extra_CPU"];
}

void AddTune(CLI::App& app) {
  auto* tune = app.add_subcommand("tune", "Run and inspect hyperparameter searches");
  tune->require_subcommand(1);

  auto o = std::make_shared<TuneRunOptions>();
  auto* run = tune->add_subcommand("run", "Run an experiment over a plugin's trainable");
  run->add_option("plugin", o->plugin, "a plugin .so registering trainables (<ray/tune.h>)")
      ->required()
      ->check(CLI::ExistingFile);
  run->add_option("-f,--config-file", o->file, "experiments in Tune's YAML format");
  AddKey<std::string>(run, *o, "--run", "trainable", "the trainable's registered name (default: the only one)");
  AddKey<std::string>(run, *o, "--name", "name", "the experiment's name (default: the trainable's)");
  AddJsonKey(run, *o, "--config", "config", "the search space, JSON (grid_search, choice, uniform, ...)");
  AddJsonKey(run, *o, "--stop", "stop", "stop criteria, JSON, e.g. '{\"training_iteration\": 10}'");
  AddKey<int64_t>(run, *o, "--num-samples", "num_samples", "samples of the search space (default 1)");
  AddJsonKey(run, *o, "--resources-per-trial", "resources_per_trial", "e.g. '{\"cpu\": 1, \"gpu\": 0}'");
  AddKey<int64_t>(run, *o, "--checkpoint-freq", "checkpoint_freq", "iterations between checkpoints (0: none)");
  run->add_flag_function("--checkpoint-at-end", [o](int64_t) { o->given["checkpoint_at_end"] = true; },
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
  run->add_flag_function("--no-reuse-actors", [o](int64_t) { o->given["reuse_actors"] = false; },
                         "a new actor for every trial");
  run->add_flag("--resume", o->resume, "continue the experiment of this name where it stopped");
  run->add_option("--address", o->address, "run on this cluster (GCS HOST:PORT) instead of a local one");
  run->add_option("--token", o->token, "the cluster's token (with --address)");
  o->cluster.Add(run);
  run->callback([o] { Run(*o); });

  AddTuneList(*tune);
}

}  // namespace ray::cli
