#include "runtime/tune/trial.h"

namespace ray::tune {

namespace {
constexpr std::pair<TrialStatus, const char*> kNames[] = {
    {TrialStatus::kPending, "PENDING"},       {TrialStatus::kRunning, "RUNNING"},
    {TrialStatus::kPaused, "PAUSED"},         {TrialStatus::kTerminated, "TERMINATED"},
    {TrialStatus::kError, "ERROR"},
};
}  // namespace

const char* ToString(TrialStatus s) {
  for (const auto& [status, name] : kNames) {
    if (status == s) return name;
  }
  return "PENDING";
}

TrialStatus TrialStatusFromString(const std::string& s) {
  for (const auto& [status, name] : kNames) {
    if (s == name) return status;
  }
  return TrialStatus::kPending;
}

std::optional<double> Trial::Metric(const std::string& key) const {
  if (!last_result.is_object()) return std::nullopt;
  auto it = last_result.find(key);
  if (it == last_result.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

Json Trial::ToJson() const {
  return Json{{"trial_id", trial_id},
              {"index", index},
              {"trainable_name", trainable},
              {"experiment_tag", experiment_tag},
              {"config", config},
              {"resources", resources},
              {"status", ToString(status)},
              {"logdir", logdir},
              {"last_result", last_result},
              {"checkpoint", checkpoint},
              {"checkpoint_iteration", checkpoint_iteration},
              {"num_failures", num_failures},
              {"error", error}};
}

Trial Trial::FromJson(const Json& j) {
  Trial t;
  t.trial_id = j.value("trial_id", "");
  t.index = j.value("index", 0);
  t.trainable = j.value("trainable_name", "");
  t.experiment_tag = j.value("experiment_tag", "");
  t.config = j.value("config", Json::object());
  t.resources = j.value("resources", std::map<std::string, double>{});
  t.status = TrialStatusFromString(j.value("status", "PENDING"));
  t.logdir = j.value("logdir", "");
  t.last_result = j.value("last_result", Json());
  t.checkpoint = j.value("checkpoint", "");
  t.checkpoint_iteration = j.value("checkpoint_iteration", int64_t{0});
  t.num_failures = j.value("num_failures", 0);
  t.error = j.value("error", "");
  return t;
}

}  // namespace ray::tune
