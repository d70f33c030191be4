#include "runtime/dashboard/tune_results.h"

#include <deque>
#include <filesystem>
#include <fstream>

#include "runtime/tune/analysis.h"

namespace ray::dashboard {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

void FlattenNumbers(const json& j, const std::string& prefix, json& out) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (prefix.empty() && it.key() == "config") continue;
    std::string key = prefix.empty() ? it.key() : prefix + "/" + it.key();
    if (it->is_object()) {
      FlattenNumbers(*it, key, out);
    } else if (it->is_number() || it->is_boolean()) {
      out[key] = it->is_boolean() ? json(it->get<bool>() ? 1 : 0) : *it;
    }
  }
}

bool HasEventFiles(const std::string& logdir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(logdir, ec)) {
    if (e.path().filename().string().rfind("events.out.tfevents.", 0) == 0) return true;
  }
  return false;
}

json TrialJson(const tune::TrialRecord& r) {
  const tune::Trial& t = r.trial;
  return {{"trial_id", t.trial_id}, {"trainable", t.trainable},
          {"experiment_tag", t.experiment_tag}, {"status", r.status},
          {"config", t.config}, {"last_result", t.last_result},
          {"last_update_time", r.last_update_time}, {"num_failures", t.num_failures},
          {"error", t.error}, {"logdir", t.logdir},
          // TensorBoard reads the trial's events.out.tfevents.* there, when written.
          {"tensorboard", HasEventFiles(t.logdir)}};
}

}  // namespace

json TuneExperiments(const std::string& results_dir) {
  json experiments = json::array();
  std::error_code ec;
  std::vector<fs::path> dirs;
  for (const auto& e : fs::directory_iterator(results_dir, ec)) {
    if (e.is_directory(ec)) dirs.push_back(e.path());
  }
  std::sort(dirs.begin(), dirs.end());
  for (const auto& dir : dirs) {
    auto analysis = tune::ExperimentAnalysis::Load(dir.string());
    if (!analysis.ok()) continue;
    json trials = json::array();
    for (const auto& r : analysis->trials()) trials.push_back(TrialJson(r));
    experiments.push_back({{"name", dir.filename().string()},
                           {"last_updated", analysis->last_updated()},
                           {"trials", trials}});
  }
  return {{"results_dir", results_dir}, {"experiments", experiments}};
}

Result<json> TrialResultRows(const std::string& results_dir, const std::string& experiment,
                             const std::string& trial_id, size_t max_rows) {
  if (experiment.empty() || experiment[0] == '.' ||
      experiment.find('/') != std::string::npos) {
    return Status::InvalidArgument("experiment '" + experiment +
                                   "' is not a dir name of the results dir");
  }
  auto analysis = tune::ExperimentAnalysis::Load((fs::path(results_dir) / experiment).string());
  if (!analysis.ok()) return Status::NotFound("no experiment " + experiment);
  for (const auto& r : analysis->trials()) {
    if (r.trial.trial_id != trial_id) continue;
    std::deque<json> rows;
    std::ifstream in(fs::path(r.trial.logdir) / "result.json");
    std::string line;
    while (std::getline(in, line)) {
      json j = json::parse(line, nullptr, false);
      if (!j.is_object()) continue;  // a half-written last line
      json flat = json::object();
      FlattenNumbers(j, "", flat);
      rows.push_back(std::move(flat));
      if (rows.size() > max_rows) rows.pop_front();
    }
    return json{{"experiment", experiment}, {"trial_id", trial_id},
                {"rows", json(std::vector<json>(rows.begin(), rows.end()))}};
  }
  return Status::NotFound("no trial " + trial_id + " in experiment " + experiment);
}

}  // namespace ray::dashboard
