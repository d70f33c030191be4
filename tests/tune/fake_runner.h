#pragma once
// For the scheduler tests: a TrialRunner that only keeps trials in memory, records
// the checkpoints and resets schedulers ask for, and a loop that drives trials the
// way `tune run` does (start what the scheduler chooses, one step per running
// trial per round, apply each decision).

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/tune/scheduler.h"

namespace ray::tune::test {

class FakeRunner : public TrialRunner {
 public:
  explicit FakeRunner(int slots = 1000) : slots_(slots) {}

  // A new PENDING trial "t<index>" (tag "<index>"), announced to `scheduler`.
  Trial& Add(TrialScheduler& scheduler, Json config = Json::object()) {
    auto t = std::make_unique<Trial>();
    t->index = static_cast<int>(trials_.size());
    t->trial_id = "t";
    t->trial_id += std::to_string(t->index);
    t->experiment_tag = std::to_string(t->index);
    t->config = std::move(config);
    trials_.push_back(std::move(t));
    scheduler.OnTrialAdd(*this, *trials_.back());
    return *trials_.back();
  }

  Trial& operator[](size_t i) { return *trials_[i]; }
  size_t size() const { return trials_.size(); }

  std::vector<Trial*> Trials() override {
    std::vector<Trial*> out;
    for (auto& t : trials_) out.push_back(t.get());
    return out;
  }

  // Room for `slots` running trials.
  bool HasResources(const Trial&) override {
    int running = 0;
    for (auto& t : trials_) running += t->status == TrialStatus::kRunning;
    return running < slots_;
  }

  Result<std::string> SaveCheckpoint(Trial& trial) override {
    const auto iteration = static_cast<int64_t>(trial.Metric("training_iteration").value_or(0));
    trial.checkpoint = "ckpt/" + trial.trial_id + "/" + std::to_string(iteration);
    trial.checkpoint_iteration = iteration;
    saved.push_back(trial.trial_id);
    return trial.checkpoint;
  }

  struct Reset {
    std::string trial_id;
    Json config;
    std::string tag;
    std::string checkpoint;
  };

  void StopTrial(Trial& trial) override { trial.status = TrialStatus::kTerminated; }

  Status ResetTrial(Trial& trial, Json new_config, std::string new_tag,
                    const std::string& checkpoint) override {
    resets.push_back({trial.trial_id, new_config, new_tag, checkpoint});
    trial.config = std::move(new_config);
    trial.experiment_tag = std::move(new_tag);
    return Status::Ok();
  }

  std::vector<std::string> saved;  // trial ids, one per SaveCheckpoint
  std::vector<Reset> resets;

 private:
  int slots_;
  std::vector<std::unique_ptr<Trial>> trials_;
};

// Reports `result` of a RUNNING trial and applies the decision to its status.
inline Decision Report(TrialScheduler& scheduler, FakeRunner& runner, Trial& trial,
                       const Json& result) {
  trial.status = TrialStatus::kRunning;
  trial.last_result = result;
  const Decision d = scheduler.OnTrialResult(runner, trial, result);
  if (d == Decision::kPause) trial.status = TrialStatus::kPaused;
  if (d == Decision::kStop) trial.status = TrialStatus::kTerminated;
  return d;
}

// Runs all trials to their end: each round starts what the scheduler chooses,
// then steps every running trial one training_iteration (also reported as
// time_total_s) with metric "score" = metric(trial, iteration). Trials that reach
// `max_iteration` complete by themselves. Returns the iterations each trial ran.
inline std::map<std::string, int64_t> Simulate(
    TrialScheduler& scheduler, FakeRunner& runner,
    const std::function<double(const Trial&, int64_t)>& metric, int64_t max_iteration) {
  std::map<std::string, int64_t> iterations;
  for (int round = 0; round < 1000000; ++round) {
    while (Trial* t = scheduler.ChooseTrialToRun(runner)) t->status = TrialStatus::kRunning;
    bool any = false;
    for (Trial* t : runner.Trials()) {
      if (t->status != TrialStatus::kRunning) continue;
      any = true;
      const int64_t it = ++iterations[t->trial_id];
      const Json result = {
          {"training_iteration", it}, {"time_total_s", it}, {"score", metric(*t, it)}};
      if (it >= max_iteration) {
        t->last_result = result;
        scheduler.OnTrialComplete(runner, *t, result);
        t->status = TrialStatus::kTerminated;
      } else {
        Report(scheduler, runner, *t, result);
      }
    }
    if (!any) break;
  }
  return iterations;
}

}  // namespace ray::tune::test
