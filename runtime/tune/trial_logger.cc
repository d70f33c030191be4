#include "runtime/tune/trial_logger.h"

#include <ray/tune_logger.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include <boost/dll/shared_library.hpp>
#include <fmt/format.h>

#include "runtime/base/util.h"
#include "runtime/tune/tensorboard.h"

namespace ray::tune {

namespace {

using Json = nlohmann::json;

// An ofstream opened for appending; `what` names it in errors.
Result<std::ofstream> Append(const std::string& path) {
  std::ofstream out(path, std::ios::app);
  if (!out) return Status::PermissionDenied("cannot write " + path);
  return out;
}

Status Flushed(std::ofstream& out, const std::string& path) {
  out.flush();
  if (!out) return Status::ResourceExhausted("cannot append results to " + path);
  return Status::Ok();
}

class JsonLogger : public TrialLogger {
 public:
  JsonLogger(std::string path, std::ofstream out) : path_(std::move(path)), out_(std::move(out)) {}
  Status OnResult(const Json& result) override {
    out_ << result.dump() << "\n";
    return Flushed(out_, path_);
  }

 private:
  std::string path_;
  std::ofstream out_;
};

// {"a": {"b": 1}} -> {"a/b": 1}, as Tune's CSV logger flattens results.
void Flatten(const Json& j, const std::string& prefix, Json& out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "config") continue;
    std::string key = prefix.empty() ? it.key() : prefix + "/" + it.key();
    if (it->is_object()) {
      Flatten(*it, key, out);
    } else {
      out[key] = *it;
    }
  }
}

std::string CsvCell(const Json& v) {
  if (v.is_null()) return "";
  if (!v.is_string()) return v.dump();
  std::string s = v.get<std::string>();
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

class CsvLogger : public TrialLogger {
 public:
  // Appending to an earlier run's progress.csv keeps its columns.
  static Result<std::unique_ptr<TrialLogger>> Open(const std::string& path) {
    std::vector<std::string> columns;
    if (auto csv = ReadFile(path); csv.ok() && !csv->empty()) {
      std::string header = csv->substr(0, csv->find('\n'));
      for (size_t start = 0; start <= header.size();) {
        size_t comma = std::min(header.find(',', start), header.size());
        columns.push_back(header.substr(start, comma - start));
        start = comma + 1;
      }
    }
    RAY_ASSIGN_OR_RETURN(std::ofstream out, Append(path));
    return std::unique_ptr<TrialLogger>(new CsvLogger(path, std::move(out), std::move(columns)));
  }

  Status OnResult(const Json& result) override {
    Json flat;
    Flatten(result, "", flat);
    if (columns_.empty()) {
      std::string header;
      for (auto it = flat.begin(); it != flat.end(); ++it) {
        columns_.push_back(it.key());
        header += (header.empty() ? "" : ",") + it.key();
      }
      out_ << header << "\n";
    }
    std::string row;
    for (size_t i = 0; i < columns_.size(); ++i) {
      auto cell = flat.find(columns_[i]);
      row += (i ? "," : "") + (cell != flat.end() ? CsvCell(*cell) : std::string());
    }
    out_ << row << "\n";
    return Flushed(out_, path_);
  }

 private:
  CsvLogger(std::string path, std::ofstream out, std::vector<std::string> columns)
      : path_(std::move(path)), out_(std::move(out)), columns_(std::move(columns)) {}
  std::string path_;
  std::ofstream out_;
  std::vector<std::string> columns_;
};

class TensorBoardLogger : public TrialLogger {
 public:
  explicit TensorBoardLogger(std::unique_ptr<EventFileWriter> writer) : writer_(std::move(writer)) {}
  Status OnResult(const Json& result) override {
    double now = static_cast<double>(std::time(nullptr));
    return writer_->Write(ScalarsEvent(now, ResultStep(result), ResultScalars(result)));
  }

 private:
  std::unique_ptr<EventFileWriter> writer_;
};

// Logger plugins stay loaded for the life of the process: their loggers may
// outlive any one experiment's list.
Result<const RayTuneLoggerApi*> LoadPlugin(const std::string& path) {
  static std::mutex mu;
  static std::map<std::string, boost::dll::shared_library> loaded;
  std::lock_guard<std::mutex> lock(mu);
  auto refuse = [&](const std::string& why) {
    return Status::InvalidArgument(fmt::format("loggers: {}: {}", path, why));
  };
  auto it = loaded.find(path);
  if (it == loaded.end()) {
    boost::dll::shared_library lib;
    try {
      lib.load(path, boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local);
    } catch (const std::exception& e) {
      return refuse(std::string("cannot be loaded: ") + e.what());
    }
    if (!lib.has("ray_tune_logger_api")) {
      return refuse("is not a Tune logger plugin (no ray_tune_logger_api; see <ray/tune_logger.h>)");
    }
    it = loaded.emplace(path, std::move(lib)).first;
  }
  const RayTuneLoggerApi* api = it->second.get<const RayTuneLoggerApi*()>("ray_tune_logger_api")();
  if (api == nullptr || api->abi_version != RAY_TUNE_LOGGER_ABI_VERSION) {
    return refuse(fmt::format("speaks Tune logger ABI {}, this ray speaks {}",
                              api ? api->abi_version : 0, RAY_TUNE_LOGGER_ABI_VERSION));
  }
  return api;
}

class PluginLogger : public TrialLogger {
 public:
  static Result<std::unique_ptr<TrialLogger>> Create(const std::string& path,
                                                     const std::string& trial_dir,
                                                     const Json& config) {
    RAY_ASSIGN_OR_RETURN(const RayTuneLoggerApi* api, LoadPlugin(path));
    char* error = nullptr;
    void* self = api->create(trial_dir.c_str(), config.dump().c_str(), &error);
    if (self == nullptr) {
      return Status::InvalidArgument(
          fmt::format("loggers: {}: refused trial dir {}: {}", path, trial_dir, Take(api, error)));
    }
    return std::unique_ptr<TrialLogger>(new PluginLogger(path, api, self));
  }
  ~PluginLogger() override { api_->destroy(self_); }

  Status OnResult(const Json& result) override {
    return Check("result", api_->on_result(self_, result.dump().c_str()));
  }
  Status OnConfig(const Json& config) override {
    return Check("config", api_->on_config(self_, config.dump().c_str()));
  }

 private:
  PluginLogger(std::string path, const RayTuneLoggerApi* api, void* self)
      : path_(std::move(path)), api_(api), self_(self) {}
  static std::string Take(const RayTuneLoggerApi* api, char* s) {
    std::string out = s ? s : "no reason given";
    if (s) api->free_string(s);
    return out;
  }
  Status Check(const char* what, char* error) {
    if (error == nullptr) return Status::Ok();
    return Status::Internal(fmt::format("logger {} failed on a {}: {}", path_, what, Take(api_, error)));
  }
  std::string path_;
  const RayTuneLoggerApi* api_;
  void* self_;
};

// The built-in logger a name means, or "" for a plugin path.
std::string BuiltIn(const std::string& name) {
  static const std::map<std::string, std::string> kNames = {
      {"json", "json"},         {"JsonLogger", "json"}, {"csv", "csv"},
      {"CSVLogger", "csv"},     {"tensorboard", "tensorboard"},
      {"TBXLogger", "tensorboard"}, {"TFLogger", "tensorboard"}};
  auto it = kNames.find(name);
  return it == kNames.end() ? "" : it->second;
}

bool LooksLikePath(const std::string& name) {
  return name.find('/') != std::string::npos || name.ends_with(".so");
}

// "my_logger.so" is a file here, not a library on the loader's search path.
std::string PluginPath(const std::string& name) {
  return std::filesystem::absolute(ExpandUser(name)).string();
}

}  // namespace

std::vector<std::string> DefaultLoggers() { return {"json", "csv", "tensorboard"}; }

Status CheckLoggers(const std::vector<std::string>& names) {
  bool json = false;
  for (const auto& name : names) {
    std::string kind = BuiltIn(name);
    json = json || kind == "json";
    if (!kind.empty()) continue;
    if (!LooksLikePath(name)) {
      return Status::InvalidArgument(
          "loggers: unknown logger '" + name +
          "' (built in: json, csv, tensorboard; or the path of a logger plugin .so)");
    }
    RAY_RETURN_IF_ERROR(LoadPlugin(PluginPath(name)).status());
  }
  if (!json) {
    return Status::InvalidArgument(
        "loggers: json cannot be left out (resuming and `tune list-trials` read result.json)");
  }
  return Status::Ok();
}

Result<std::vector<std::unique_ptr<TrialLogger>>> MakeLoggers(
    const std::vector<std::string>& names, const std::string& trial_dir, const Json& config) {
  RAY_RETURN_IF_ERROR(CheckLoggers(names));
  std::vector<std::unique_ptr<TrialLogger>> out;
  for (const auto& name : names) {
    std::string kind = BuiltIn(name);
    if (kind == "json") {
      RAY_ASSIGN_OR_RETURN(std::ofstream f, Append(trial_dir + "/result.json"));
      out.push_back(std::make_unique<JsonLogger>(trial_dir + "/result.json", std::move(f)));
    } else if (kind == "csv") {
      RAY_ASSIGN_OR_RETURN(auto csv, CsvLogger::Open(trial_dir + "/progress.csv"));
      out.push_back(std::move(csv));
    } else if (kind == "tensorboard") {
      RAY_ASSIGN_OR_RETURN(auto writer, EventFileWriter::Create(trial_dir));
      out.push_back(std::make_unique<TensorBoardLogger>(std::move(writer)));
    } else {
      RAY_ASSIGN_OR_RETURN(auto plugin, PluginLogger::Create(PluginPath(name), trial_dir, config));
      out.push_back(std::move(plugin));
    }
  }
  return out;
}

}  // namespace ray::tune
