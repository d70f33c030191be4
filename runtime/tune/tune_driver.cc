#include "runtime/tune/tune_driver.h"

#include <ray/api.h>
#include <ray/tune.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <utility>

#include "runtime/base/yaml.h"
#include "runtime/tune/analysis.h"
#include "runtime/tune/tune_server.h"
#include "runtime/worker/plugin.h"

namespace ray::tune {

namespace {

namespace ri = ray::internal;

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
  RAY_ASSIGN_OR_RETURN(std::string out, CallPlugin(plugin, internal::kResourceRequest,
                                                   {ri::Pack(trainable), ri::Pack(config.dump())}));
  Json j = Json::parse(ri::Unpack<std::string>(out.data(), out.size()));
  return j.is_null() ? std::optional<Json>() : std::optional<Json>(std::move(j));
}

// The raw experiments of a Tune YAML file, each with "name" and "trainable" set.
Result<std::vector<Json>> ExperimentsOfFile(const std::string& file) {
  RAY_ASSIGN_OR_RETURN(Json doc, LoadYamlFile(file));
  if (!doc.is_object() || doc.empty()) {
    return Status::InvalidArgument(file + ": expected a mapping of experiment names");
  }
  std::vector<Json> raw;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (!it->is_object())
      return Status::InvalidArgument(file + ": " + it.key() + " is not a mapping");
    Json e = *it;
    e["name"] = it.key();
    if (e.contains("run")) {
      e["trainable"] = e["run"];
      e.erase("run");
    }
    raw.push_back(e);
  }
  return raw;
}

// The best trial of a finished experiment, by the metric the experiment optimised.
void PrintBest(const ExperimentSpec& spec, const std::string& dir) {
  std::string metric =
      spec.metric.empty() ? spec.scheduler_config.value("metric", "") : spec.metric;
  std::string mode = spec.mode.empty() ? spec.scheduler_config.value("mode", "max") : spec.mode;
  if (metric.empty()) return;
  auto analysis = ExperimentAnalysis::Load(dir);
  if (!analysis.ok()) return;
  auto best = analysis->BestTrial(metric, mode == "min" ? Mode::kMin : Mode::kMax);
  if (!best) return;
  std::printf("Best trial %s: %s=%s, config %s\n", best->trial.experiment_tag.c_str(),
              metric.c_str(), best->trial.last_result[metric].dump().c_str(),
              best->trial.config.dump().c_str());
  if (auto ckpt = ExperimentAnalysis::BestCheckpoint(best->trial)) {
    std::printf("Best checkpoint: %s\n", ckpt->c_str());
  }
}

}  // namespace

Result<std::vector<ExperimentSpec>> BuildExperiments(const ExperimentSources& sources) {
  std::vector<Json> raw = {Json::object()};
  if (!sources.file.empty()) {
    RAY_ASSIGN_OR_RETURN(raw, ExperimentsOfFile(sources.file));
  }
  std::vector<ExperimentSpec> out;
  for (Json e : raw) {
    std::string where = sources.file.empty() ? "" : sources.file + ": " + e.value("name", "") + ".";
    e.update(sources.given);
    if (e.contains("resources_per_trial")) {
      auto r = ParseTrialResources(e["resources_per_trial"]);
      if (!r.ok()) return Status::InvalidArgument(where + r.status().message());
      e["resources_per_trial"] = *r;
    }
    auto spec = ExperimentSpec::FromJson(e);
    if (!spec.ok()) return Status::InvalidArgument(where + spec.status().message());
    for (const auto& [key, value] :
         {std::pair{"config", &spec->config}, std::pair{"stop", &spec->stop}}) {
      if (!value->is_object())
        return Status::InvalidArgument(where + key + " must be a JSON object");
    }
    if (spec->mode != "" && spec->mode != "max" && spec->mode != "min") {
      return Status::InvalidArgument(where + "mode must be max or min");
    }
    if (auto loggers = CheckLoggers(spec->loggers); !loggers.ok()) {
      return Status::InvalidArgument(where + loggers.message());
    }
    out.push_back(std::move(*spec));
  }
  return out;
}

int DriveExperiments(const DriveOptions& options, worker::Plugin& plugin,
                     const RayRuntimeApi* api) {
  const std::string prefix = "ray " + options.command + ": ";
  const char* plugin_path = options.plugin_path.c_str();
  ri::Api() = api;
  auto listed = CallPlugin(plugin, internal::kTrainables, {});
  if (!listed.ok()) {
    std::fprintf(stderr,
                 "%s%s registers no trainable (use RAY_TUNE_TRAINABLE or "
                 "RAY_TUNE_FUNCTION from <ray/tune.h>)\n",
                 prefix.c_str(), plugin_path);
    return 1;
  }
  auto names = ri::Unpack<std::vector<std::string>>(listed->data(), listed->size());
  SampleFromFn sample_from = [&](const std::string& name, const Json& config) -> Result<Json> {
    RAY_ASSIGN_OR_RETURN(std::string out, CallPlugin(plugin, internal::kSampleFrom,
                                                     {ri::Pack(name), ri::Pack(config.dump())}));
    return Json::parse(ri::Unpack<std::string>(out.data(), out.size()));
  };
  ResourceRequestFn resource_request = [&](const std::string& trainable, const Json& config) {
    return RequestResources(plugin, trainable, config);
  };
  std::unique_ptr<TuneServer> server;
  if (options.with_server) {
    TuneServer::Options server_options;
    server_options.port = options.server_port;
    server_options.token = options.token;
    auto started = TuneServer::Start(server_options);
    if (!started.ok()) {
      std::fprintf(stderr, "%s%s\n", prefix.c_str(), started.status().message().c_str());
      return 1;
    }
    server = std::move(started).value();
    std::printf("Tune's Client API at %s/trials (send the cluster token: "
                "-H \"Authorization: Bearer TOKEN\")\n", server->url().c_str());
    std::fflush(stdout);
  }
  int code = 0;
  for (ExperimentSpec spec : options.experiments) {
    if (spec.trainable.empty() && names.size() == 1) spec.trainable = names[0];
    if (options.resume) {
      auto stored = StoredExperiment(spec);
      if (!stored.ok()) {
        std::fprintf(stderr, "%s%s\n", prefix.c_str(), stored.status().message().c_str());
        return 1;
      }
      if (*stored) spec = **stored;
    }
    if (std::find(names.begin(), names.end(), spec.trainable) == names.end()) {
      std::string known;
      for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
      std::fprintf(stderr, "%s%s: %s (its trainables: %s)\n", prefix.c_str(), plugin_path,
                   spec.trainable.empty() ? "choose a trainable with --run"
                                          : ("no trainable named '" + spec.trainable + "'").c_str(),
                   known.c_str());
      return 1;
    }
    auto outcome = RunExperiment(spec, options.resume, sample_from, resource_request, server.get());
    if (!outcome.ok()) {
      std::fprintf(stderr, "%s%s\n", prefix.c_str(), outcome.status().message().c_str());
      return 1;
    }
    PrintBest(spec, outcome->dir);
    if (outcome->errored > 0) {
      std::fprintf(stderr, "%s%d of %zu trials errored:\n", prefix.c_str(), outcome->errored,
                   outcome->trials.size());
      for (const auto& t : outcome->trials) {
        if (t.status == TrialStatus::kError) {
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
  RAY_ASSIGN_OR_RETURN(auto resources, ParseTrialResources(request.value_or(Json::object())));
  return resources["CPU"] + resources["extra_CPU"];
}

}  // namespace ray::tune
