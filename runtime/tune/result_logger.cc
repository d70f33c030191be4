#include "runtime/tune/result_logger.h"

#include <algorithm>
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

// {"a": {"b": 1}} -> {"a/b": 1}, as Tune's CSV logger flattens results.
void Flatten(const nlohmann::json& j, const std::string& prefix, nlohmann::json& out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::string key = prefix.empty() ? it.key() : prefix + "/" + it.key();
    if (it->is_object() && it.key() != "config") {
      Flatten(*it, key, out);
    } else if (it.key() != "config") {
      out[key] = *it;
    }
  }
}

std::string CsvCell(const nlohmann::json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
  }
  return v.dump();
}

}  // namespace

ResultLogger::ResultLogger(std::string dir, nlohmann::json config, std::string experiment_id,
                           std::string trial_id)
    : dir_(std::move(dir)),
      config_(std::move(config)),
      trial_id_(trial_id.empty() ? ToHex(RandomBytes(4)) : std::move(trial_id)),
      experiment_id_(std::move(experiment_id)) {}

Result<std::unique_ptr<ResultLogger>> ResultLogger::Create(const std::string& trial_dir,
                                                           const nlohmann::json& config,
                                                           const std::string& experiment_id,
                                                           const std::string& trial_id) {
  std::error_code ec;
  fs::create_directories(trial_dir, ec);
  if (ec) return Status::PermissionDenied("cannot create " + trial_dir + ": " + ec.message());
  std::unique_ptr<ResultLogger> logger(
      new ResultLogger(trial_dir, config, experiment_id, trial_id));
  RAY_RETURN_IF_ERROR(logger->SetConfig(config));
  // Appending to an earlier run's progress.csv: keep its columns.
  if (auto csv = ReadFile(trial_dir + "/progress.csv"); csv.ok() && !csv->empty()) {
    std::string header = csv->substr(0, csv->find('\n'));
    for (size_t start = 0; start <= header.size();) {
      size_t comma = std::min(header.find(',', start), header.size());
      logger->csv_columns_.push_back(header.substr(start, comma - start));
      start = comma + 1;
    }
  }
  logger->json_.open(trial_dir + "/result.json", std::ios::app);
  logger->csv_.open(trial_dir + "/progress.csv", std::ios::app);
  if (!logger->json_ || !logger->csv_) {
    return Status::PermissionDenied("cannot write results under " + trial_dir);
  }
  return logger;
}

Status ResultLogger::SetConfig(const nlohmann::json& config) {
  config_ = config;
  return WriteFile(dir_ + "/params.json", config.dump(2) + "\n");
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

  json_ << r.dump() << "\n";
  json_.flush();
  nlohmann::json flat;
  Flatten(r, "", flat);
  if (csv_columns_.empty()) {
    for (auto it = flat.begin(); it != flat.end(); ++it) csv_columns_.push_back(it.key());
    std::string header;
    for (const auto& c : csv_columns_) header += (header.empty() ? "" : ",") + c;
    csv_ << header << "\n";
  }
  std::string row;
  for (size_t i = 0; i < csv_columns_.size(); ++i) {
    row += (i ? "," : "") + (flat.contains(csv_columns_[i]) ? CsvCell(flat[csv_columns_[i]]) : "");
  }
  csv_ << row << "\n";
  csv_.flush();
  if (!json_ || !csv_) return Status::ResourceExhausted("cannot append results in " + dir_);
  return r;
}

bool ShouldStop(const nlohmann::json& stop, const nlohmann::json& result) {
  for (auto it = stop.begin(); it != stop.end(); ++it) {
    if (!result.contains(it.key()) || !result[it.key()].is_number() || !it->is_number()) continue;
    if (result[it.key()].get<double>() >= it->get<double>()) return true;
  }
  return false;
}

}  // namespace ray::tune
