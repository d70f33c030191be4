// `rllib train` / `rllib rollout` (also `ray rllib ...`): RLlib's command line. An
// algorithm is a plugin shipped with ray: algorithms/<name>/<name>.so in the build
// tree, lib/ray/algorithms/<name>.so when installed, <name> being the algorithm's
// RLlib name in lower case (PPO: ppo.so). Training runs it as a job on a local
// cluster started for it or, with --address, on a running cluster.

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/common.h"
#include "runtime/base/fs.h"
#include "runtime/base/yaml.h"
#include "runtime/node/node.h"
#include "runtime/tune/tune_driver.h"

namespace ray::cli {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Installed algorithm plugins by RLlib's name (the file's stem in upper case), with
// their paths; the build tree's first, then the install tree's.
std::map<std::string, std::string> InstalledAlgorithms() {
  std::map<std::string, std::string> out;
  const fs::path exe_dir = fs::path(SelfExecutable()).parent_path();
  auto add = [&](const fs::path& so) {
    std::string name = so.stem().string();
    std::transform(name.begin(), name.end(), name.begin(), ::toupper);
    if (!out.count(name)) out[name] = fs::canonical(so).string();
  };
  std::error_code ec;
  for (const auto& d : fs::directory_iterator(exe_dir / ".." / "algorithms", ec)) {
    fs::path so = d.path() / (d.path().filename().string() + ".so");
    if (d.is_directory() && fs::exists(so)) add(so);
  }
  for (const char* lib : {"lib", "lib64"}) {
    for (const auto& f : fs::directory_iterator(exe_dir / ".." / lib / "ray" / "algorithms", ec)) {
      if (f.path().extension() == ".so") add(f.path());
    }
  }
  return out;
}

struct Experiment {
  std::string name = "default";
  std::string run;
  std::string env;
  std::string config = "{}";
  std::string stop = "{}";
  int checkpoint_freq = 0;
  bool checkpoint_at_end = false;
  std::string local_dir;
  std::string restore;
  std::string env_plugin;
  std::string model_plugin;
  std::vector<std::string> loggers = tune::DefaultLoggers();
};

struct TrainOptions {
  Experiment flags;
  std::string file;
  LocalClusterFlags cluster;
  std::string address, token;  // a running cluster instead of a local one
  // The options given on the command line, by flag name (for -f and --address).
  std::map<std::string, CLI::Option*> options;
  bool Given(const std::string& flag) const {
    auto it = options.find(flag);
    return it != options.end() && it->second->count() > 0;
  }
};

struct RolloutOptions {
  std::string checkpoint;
  std::string run;
  std::string env;
  std::string config = "{}";
  int64_t steps = 10000;
  int64_t episodes = 0;
  LocalClusterFlags cluster;
};

std::string AlgorithmPlugin(const std::string& command, const std::string& run) {
  const auto installed = InstalledAlgorithms();
  auto it = installed.find(run);
  if (it == installed.end()) {
    std::string known;
    for (const auto& [name, path] : installed) known += (known.empty() ? "" : ", ") + name;
    Fail(command, Status::InvalidArgument("unknown algorithm '" + run + "' for --run; installed: " +
                                          (known.empty() ? "none" : known)));
  }
  return it->second;
}

// RLlib's experiment file: {name: {run, env, stop, config, checkpoint_freq, ...}}.
std::vector<Experiment> LoadExperiments(const std::string& file) {
  auto loaded = LoadYamlFile(file);
  if (!loaded.ok()) Fail("rllib train", loaded.status());
  json doc = std::move(loaded).value();
  if (!doc.is_object() || doc.empty()) {
    Fail("rllib train", Status::InvalidArgument(file + ": expected a mapping of experiment names"));
  }
  std::vector<Experiment> out;
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    const json& e = it.value();
    auto where = [&](const std::string& key) { return file + ": " + it.key() + "." + key; };
    if (!e.is_object()) Fail("rllib train", Status::InvalidArgument(where("") + " is not a mapping"));
    static const std::vector<std::string> kKeys = {"run", "env", "stop", "config",
                                                   "checkpoint_freq", "checkpoint_at_end",
                                                   "local_dir", "restore", "loggers"};
    for (auto k = e.begin(); k != e.end(); ++k) {
      if (std::find(kKeys.begin(), kKeys.end(), k.key()) == kKeys.end()) {
        Fail("rllib train", Status::InvalidArgument(where(k.key()) + ": unknown key"));
      }
    }
    Experiment x;
    x.name = it.key();
    x.run = e.value("run", "");
    json config = e.value("config", json::object());
    x.env = e.value("env", config.value("env", ""));
    config.erase("env");
    x.config = config.dump();
    x.stop = e.value("stop", json::object()).dump();
    x.checkpoint_freq = e.value("checkpoint_freq", 0);
    x.checkpoint_at_end = e.value("checkpoint_at_end", false);
    x.local_dir = e.value("local_dir", "");
    x.restore = e.value("restore", "");
    if (e.contains("loggers")) {
      const json& loggers = e["loggers"];
      bool strings = loggers.is_array() && std::all_of(loggers.begin(), loggers.end(),
                                                       [](const json& l) { return l.is_string(); });
      if (!strings) Fail("rllib train", Status::InvalidArgument(where("loggers") + ": expected a list of names"));
      x.loggers = loggers.get<std::vector<std::string>>();
    }
    if (x.run.empty()) Fail("rllib train", Status::InvalidArgument(where("run") + " is missing"));
    out.push_back(std::move(x));
  }
  return out;
}

// An RLlib run as Tune runs it: one trial of the algorithm's trainable, holding the
// trainer's CPUs and its rollout workers' as extra CPUs (Ray's default_resource_request).
tune::ExperimentSpec ToSpec(const Experiment& x) {
  tune::ExperimentSpec spec;
  spec.name = x.name;
  spec.trainable = x.run;
  spec.config = json::parse(x.config);
  spec.config["env"] = x.env;
  // Env, model and callbacks plugins are loaded by every worker: give them paths that
  // work anywhere.
  if (!x.env_plugin.empty()) spec.config["env_plugin"] = x.env_plugin;
  if (!x.model_plugin.empty()) spec.config["model_plugin"] = x.model_plugin;
  for (const char* key : {"env_plugin", "model_plugin", "callbacks"}) {
    if (spec.config.contains(key) && spec.config[key].is_string()) {
      spec.config[key] = fs::absolute(spec.config[key].get<std::string>()).string();
    }
  }
  spec.stop = json::parse(x.stop);
  spec.checkpoint_freq = x.checkpoint_freq;
  spec.checkpoint_at_end = x.checkpoint_at_end;
  spec.local_dir = x.local_dir;
  spec.restore = x.restore;
  spec.loggers = x.loggers;
  spec.metric = "episode_reward_mean";
  spec.mode = "max";
  return spec;  // resources: the trainer's DefaultResourceRequest
}

// With -f, the experiment flags given on the command line win over the file's keys
// for every experiment in it, and each one that does is reported on stderr (RLlib's
// own `rllib train -f` ignores them silently). --run and --experiment-name name
// experiments, which the file does: they are refused.
void ApplyFlagsOverFile(const TrainOptions& o, std::vector<Experiment>* experiments) {
  for (const char* flag : {"--run", "--experiment-name"}) {
    if (o.Given(flag)) {
      Fail("rllib train", Status::InvalidArgument(std::string(flag) + " cannot be used with -f " + o.file +
                                                  ": the file names its experiments and their algorithms"));
    }
  }
  const Experiment& f = o.flags;
  json flag_config = json::object();
  if (o.Given("--config")) {
    if (!json::accept(f.config) || !json::parse(f.config).is_object()) {
      Fail("rllib train", Status::InvalidArgument("--config must be a JSON object"));
    }
    flag_config = json::parse(f.config);
  }
  if (o.Given("--env-plugin")) flag_config["env_plugin"] = f.env_plugin;
  if (o.Given("--model-plugin")) flag_config["model_plugin"] = f.model_plugin;
  for (Experiment& x : *experiments) {
    auto report = [&](const std::string& flag, const std::string& key, const std::string& was,
                      const std::string& now) {
      std::fprintf(stderr, "rllib train: %s sets %s.%s to %s (%s has %s)\n", flag.c_str(), x.name.c_str(),
                   key.c_str(), now.c_str(), o.file.c_str(), was.empty() ? "none" : was.c_str());
    };
    auto apply = [&](const char* flag, const char* key, auto* field, const auto& value, auto show) {
      if (!o.Given(flag)) return;
      report(flag, key, show(*field), show(value));
      *field = value;
    };
    auto text = [](const std::string& v) { return v; };
    auto number = [](int v) { return std::to_string(v); };
    auto boolean = [](bool v) { return std::string(v ? "true" : "false"); };
    apply("--env", "env", &x.env, f.env, text);
    apply("--stop", "stop", &x.stop, f.stop, text);
    apply("--checkpoint-freq", "checkpoint_freq", &x.checkpoint_freq, f.checkpoint_freq, number);
    apply("--checkpoint-at-end", "checkpoint_at_end", &x.checkpoint_at_end, f.checkpoint_at_end, boolean);
    apply("--local-dir", "local_dir", &x.local_dir, f.local_dir, text);
    apply("--restore", "restore", &x.restore, f.restore, text);
    if (flag_config.empty()) continue;
    json config = json::parse(x.config);
    for (const auto& [key, value] : flag_config.items()) {
      report("--config", "config." + key, config.contains(key) ? config[key].dump() : "", value.dump());
      config[key] = value;
    }
    x.config = config.dump();
  }
}

void Train(const TrainOptions& o) {
  std::vector<Experiment> experiments;
  if (!o.file.empty()) {
    experiments = LoadExperiments(o.file);
    ApplyFlagsOverFile(o, &experiments);
  } else {
    if (o.flags.run.empty()) {
      Fail("rllib train", Status::InvalidArgument("--run ALGORITHM is required (or -f FILE)"));
    }
    experiments.push_back(o.flags);
  }
  if (o.address.empty() && o.Given("--token")) {
    Fail("rllib train", Status::InvalidArgument("--token is for a running cluster: give its --address too"));
  }
  if (!o.address.empty()) {
    for (const char* flag : {"--num-cpus", "--num-gpus", "--resources", "--object-store-memory"}) {
      if (o.Given(flag)) {
        Fail("rllib train", Status::InvalidArgument(std::string(flag) + " sizes the local cluster rllib train "
                                                    "starts; with --address the running cluster has its own"));
      }
    }
  }
  std::vector<tune::ExperimentSpec> specs;
  double cpus_needed = 0;
  for (const Experiment& x : experiments) {
    for (const auto& [what, text] : {std::pair{"--config", x.config}, std::pair{"--stop", x.stop}}) {
      if (!json::accept(text) || !json::parse(text).is_object()) {
        Fail("rllib train", Status::InvalidArgument(std::string(what) + " must be a JSON object"));
      }
    }
    if (x.env.empty()) Fail("rllib train", Status::InvalidArgument("--env is required"));
    if (auto loggers = tune::CheckLoggers(x.loggers); !loggers.ok()) Fail("rllib train", loggers);
    specs.push_back(ToSpec(x));
  }
  std::string plugin = AlgorithmPlugin("rllib train", experiments[0].run);
  for (const auto& spec : specs) {
    auto cpus = tune::TrialCpus(plugin, spec.trainable, spec.config);
    if (!cpus.ok()) Fail("rllib train", cpus.status());
    cpus_needed = std::max(cpus_needed, *cpus);
  }
  tune::DriveOptions drive;
  drive.command = "rllib train";
  drive.plugin_path = plugin;
  drive.experiments = specs;
  auto run = [&](worker::Plugin& p, const RayRuntimeApi* api) { return tune::DriveExperiments(drive, p, api); };
  if (!o.address.empty()) {
    // A trial that needs more CPUs than the cluster has waits (Tune's pending trial).
    ClusterFlags flags;
    flags.address = o.address;
    flags.token = o.token;
    flags.temp_dir = o.cluster.temp_dir;
    DriveOnCluster("rllib train", flags, plugin, run);
    return;
  }
  // A local cluster holds at least one trial, even on a machine with fewer cores
  // (the trainer and its workers take turns: sampling, then learning).
  LocalClusterFlags cluster = o.cluster;
  if (!cluster.resources.num_cpus) {
    cluster.resources.num_cpus = std::max<double>(node::DetectCpus(), cpus_needed);
  }
  DriveOnLocalCluster("rllib train", cluster, plugin, run);
}

void Rollout(const RolloutOptions& o) {
  std::vector<std::string> args = {"rollout", o.checkpoint, "--config", o.config,
                                   "--steps", std::to_string(o.steps)};
  if (!o.env.empty()) args.insert(args.end(), {"--env", o.env});
  if (o.episodes > 0) args.insert(args.end(), {"--episodes", std::to_string(o.episodes)});
  RunOnLocalCluster("rllib rollout", o.cluster, AlgorithmPlugin("rllib rollout", o.run), args);
}

}  // namespace

void AddRllib(CLI::App& app) {
  auto* rllib = app.add_subcommand("rllib", "Train and roll out RLlib algorithms");
  rllib->require_subcommand(1);

  auto t = std::make_shared<TrainOptions>();
  auto* train = rllib->add_subcommand("train", "Train an algorithm on an environment");
  auto& opt = t->options;
  opt["--run"] = train->add_option("--run", t->flags.run, "the algorithm: any installed algorithm plugin (PPO, DQN, SAC, ES, ...; a wrong name lists them)");
  opt["--env"] = train->add_option("--env", t->flags.env, "a registered environment, e.g. CartPole-v1");
  opt["--env-plugin"] = train->add_option(
      "--env-plugin", t->flags.env_plugin, "a library of envs to load (RAY_ENV, <ray/rllib/env_plugin.h>), for --env");
  opt["--model-plugin"] = train->add_option(
      "--model-plugin", t->flags.model_plugin,
      "a library of custom models (RAY_MODEL, <ray/rllib/model_plugin.h>), for model.custom_model");
  opt["--config"] = train->add_option("--config", t->flags.config, "algorithm config overrides, JSON");
  opt["--stop"] = train->add_option("--stop", t->flags.stop,
                                    "stop criteria, JSON, e.g. '{\"episode_reward_mean\": 475}'");
  train->add_option("-f,--config-file", t->file,
                    "an RLlib experiment file (YAML); flags given with it win over its keys, and say so");
  opt["--checkpoint-freq"] = train->add_option("--checkpoint-freq", t->flags.checkpoint_freq,
                                               "save a checkpoint every N iterations (0: never)");
  opt["--checkpoint-at-end"] =
      train->add_flag("--checkpoint-at-end", t->flags.checkpoint_at_end, "save one when training stops");
  opt["--local-dir"] = train->add_option("--local-dir", t->flags.local_dir, "results root (default ~/ray_results)");
  opt["--experiment-name"] =
      train->add_option("--experiment-name", t->flags.name, "experiment dir name (default: default)");
  opt["--restore"] = train->add_option("--restore", t->flags.restore, "start from this checkpoint");
  train->add_option("--address", t->address,
                    "train on this running cluster (its GCS HOST:PORT) instead of a local one");
  opt["--token"] = train->add_option(
      "--token", t->token,
      "the cluster's token, with --address (default: the file $RAY_CLUSTER_TOKEN_FILE names, else the "
      "local session's)");
  t->cluster.Add(train);
  for (const char* flag : {"--num-cpus", "--num-gpus", "--resources", "--object-store-memory"}) {
    opt[flag] = train->get_option(flag);
  }
  train->callback([t] { Train(*t); });

  auto r = std::make_shared<RolloutOptions>();
  auto* rollout = rllib->add_subcommand("rollout", "Run a trained policy and report episode returns");
  rollout->add_option("checkpoint", r->checkpoint, "a checkpoint dir (or its policy.pt)")->required();
  rollout->add_option("--run", r->run, "the algorithm that made it (PPO, PG, A2C)")->required();
  rollout->add_option("--env", r->env, "the environment (default: the trial's, from params.json)");
  rollout->add_option("--config", r->config, "the config it was trained with (model keys), JSON");
  rollout->add_option("--steps", r->steps, "steps to run (default 10000)");
  rollout->add_option("--episodes", r->episodes, "episodes to run (overrides --steps)");
  r->cluster.Add(rollout);
  rollout->callback([r] { Rollout(*r); });
}

}  // namespace ray::cli
