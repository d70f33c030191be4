#pragma once
// What every RLlib trainable shares that needs no torch (trainer.h for the policy
// gradient and replay algorithms, algorithms/es/evolution_trainer.h for ES and ARS):
// Status to exception at the plugin boundary, RLlib's default_resource_request, the
// observation filter of a checkpoint, and the arguments and trial config of
// `rollout CHECKPOINT --env E` (`rllib rollout`). Header-only, for plugins.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/base/status.h"
#include "runtime/base/util.h"
#include "runtime/rllib/observation_filter.h"

namespace ray::rllib::internal {

template <typename T>
T OrThrow(Result<T> r) {
  if (!r.ok()) throw std::runtime_error(r.status().message());
  return std::move(r).value();
}

inline void OrThrow(const Status& st) {
  if (!st.ok()) throw std::runtime_error(st.message());
}

// RLlib's default_resource_request: the trainer's CPUs and its workers' as extra CPUs,
// from the trial's config over the algorithm's defaults (`Defaults`: its config).
template <typename Defaults>
nlohmann::json ResourceRequest(const nlohmann::json& config) {
  Defaults d;
  auto number = [&](const char* key, double fallback) {
    return config.contains(key) && config[key].is_number() ? config[key].get<double>() : fallback;
  };
  return {{"cpu", number("num_cpus_for_driver", d.num_cpus_for_driver)},
          {"extra_cpu", number("num_workers", d.num_workers) * number("num_cpus_per_worker", d.num_cpus_per_worker)}};
}

// The checkpoint directory of `checkpoint` (a directory, or a file inside one).
inline std::filesystem::path CheckpointDir(const std::string& checkpoint) {
  namespace fs = std::filesystem;
  return fs::is_directory(checkpoint) ? fs::path(checkpoint) : fs::path(checkpoint).parent_path();
}

// A checkpoint's observation filter into `filter` (none saved: left as it is).
inline void RestoreFilter(const std::string& checkpoint, MeanStdFilter* filter) {
  const std::string dir = CheckpointDir(checkpoint).string();
  auto text = ray::ReadFile(dir + "/filters.json");
  if (!filter || !text.ok()) return;
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
  if (!j.is_object() || !j.contains("default_policy")) {
    throw std::runtime_error(dir + "/filters.json: expected {\"default_policy\": {...}}");
  }
  OrThrow(filter->FromJson(j["default_policy"]));
}

// `rollout CHECKPOINT [--env E] [--config JSON] [--steps N] [--episodes N]`.
struct RolloutArgs {
  std::string env;
  std::string config_json = "{}";  // the trial's params.json (without env) unless --config
  std::string checkpoint;
  int64_t steps = 10000;
  int64_t episodes = 0;  // > 0: run this many episodes instead of `steps`
};

// Parses argv (argv[1] must be "rollout": nullopt otherwise, after saying so). As
// RLlib, the config (and env) the policy was trained with is the trial's params.json
// beside the checkpoint directory; --config (--env) overrides it. Throws std::invalid_argument naming a
// bad argument.
inline std::optional<RolloutArgs> ParseRolloutArgs(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "rollout") {
    std::fprintf(stderr, "unknown mode '%s' (rollout; training runs through Tune)\n", mode.c_str());
    return std::nullopt;
  }
  RolloutArgs a;
  for (int i = 2; i < argc; ++i) {
    std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(k + " needs a value");
      return argv[++i];
    };
    if (k == "--env") a.env = value();
    else if (k == "--config") a.config_json = value();
    else if (k == "--steps") a.steps = std::stoll(value());
    else if (k == "--episodes") a.episodes = std::stoll(value());
    else if (a.checkpoint.empty() && k.rfind("--", 0) != 0) a.checkpoint = k;
    else throw std::invalid_argument("unknown argument '" + k + "'");
  }
  if (a.checkpoint.empty()) throw std::invalid_argument("rollout needs a CHECKPOINT");
  fs::path params = CheckpointDir(a.checkpoint).parent_path() / "params.json";
  if (fs::exists(params)) {
    std::ifstream in(params);
    nlohmann::json p = nlohmann::json::parse(in, nullptr, false);
    if (p.is_discarded() || !p.is_object()) throw std::invalid_argument(params.string() + ": not a JSON object");
    if (a.env.empty() && p.value("env", nlohmann::json()).is_string()) a.env = p["env"];
    p.erase("env");
    if (a.config_json == "{}") a.config_json = p.dump();
  }
  if (a.env.empty()) {
    throw std::invalid_argument("--env is required (no params.json beside the checkpoint names one)");
  }
  return a;
}

}  // namespace ray::rllib::internal
