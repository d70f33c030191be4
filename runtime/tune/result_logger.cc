#include "runtime/tune/result_logger.h"

#include <cstdlib>
#include <ctime>
#include <filesystem>

#include "runtime/base/util.h"

namespace ray::tune {

namespace fs = std::filesystem;

std::string DefaultLocalDir() {
  if (const char* dir = std::getenv("TUNE_RESULT_DIR")) return dir;
  const char* home = std::getenv("HOME");
  return std::string(home ? home : "/tmp") + "/ray_results";
}

namespace {

std::string Now(const char* format) {
  std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof(buf), format, std::localtime(&t));
  return buf;
}

}  // namespace

ResultLogger::ResultLogger(std::string dir, nlohmann::json config, std::string experiment_id,
                           std::string trial_id)
    : dir_(std::move(dir)),
      config_(std::move(config)),
      trial_id_(trial_id.empty() ? ToHex(RandomBytes(4)) : std::move(trial_id)),
      experiment_id_(std::move(experiment_id)) {}

Result<std::unique_ptr<ResultLogger>> ResultLogger::Create(
    const std::string& trial_dir, const nlohmann::json& config, const std::string& experiment_id,
    const std::string& trial_id, const std::vector<std::string>& loggers) {
  std::error_code ec;
  fs::create_directories(trial_dir, ec);
  if (ec) return Status::PermissionDenied("cannot create " + trial_dir + ": " + ec.message());
  std::unique_ptr<ResultLogger> logger(
      new ResultLogger(trial_dir, config, experiment_id, trial_id));
  RAY_RETURN_IF_ERROR(WriteFile(trial_dir + "/params.json", config.dump(2) + "\n"));
  RAY_ASSIGN_OR_RETURN(logger->loggers_, MakeLoggers(loggers, trial_dir, config));
  return logger;
}

Status ResultLogger::SetConfig(const nlohmann::json& config) {
  config_ = config;
  RAY_RETURN_IF_ERROR(WriteFile(dir_ + "/params.json", config.dump(2) + "\n"));
  for (auto& logger : loggers_) RAY_RETURN_IF_ERROR(logger->OnConfig(config));
  return Status::Ok();
}

Result<nlohmann::json> ResultLogger::Log(nlohmann::json r) {
  auto fill = [&](const char* key, nlohmann::json value) {
    if (!r.contains(key)) r[key] = std::move(value);
  };
  fill("done", false);
  fill("trial_id", trial_id_);
  fill("experiment_id", experiment_id_);
  fill("date", Now("%Y-%m-%d_%H-%M-%S"));
  fill("timestamp", static_cast<int64_t>(std::time(nullptr)));
  fill("config", config_);

  for (auto& logger : loggers_) RAY_RETURN_IF_ERROR(logger->OnResult(r));
  return r;
}

namespace {

// The result field a stop key names: the top-level field of that name, else the
// nested one its slashes lead to ("evaluation/episode_reward_mean", as Tune flattens
// results); null when there is none.
const nlohmann::json* StopField(const nlohmann::json& result, const std::string& key) {
  if (result.contains(key)) return &result.at(key);
  const nlohmann::json* field = &result;
  for (size_t start = 0; field;) {
    const size_t slash = std::min(key.find('/', start), key.size());
    const std::string part = key.substr(start, slash - start);
    field = field->is_object() && field->contains(part) ? &field->at(part) : nullptr;
    if (slash == key.size()) break;
    start = slash + 1;
  }
  return field;
}

}  // namespace

bool ShouldStop(const nlohmann::json& stop, const nlohmann::json& result) {
  for (auto it = stop.begin(); it != stop.end(); ++it) {
    const nlohmann::json* field = StopField(result, it.key());
    if (!field || !field->is_number() || !it->is_number()) continue;
    if (field->get<double>() >= it->get<double>()) return true;
  }
  return false;
}

}  // namespace ray::tune
