// HyperBand: Li, Jamieson, DeSalvo, Rostamizadeh, Talwalkar, "Hyperband: A Novel
// Bandit-Based Approach to Hyperparameter Optimization" (JMLR 2018, arXiv
// 1603.06560), synchronous, as Ray Tune's HyperBandScheduler does it.
//
// With eta = reduction_factor and s_max + 1 = round(log_eta(max_t)) + 1 brackets
// per band, bracket s holds n0 = ceil((s_max + 1) / (s + 1) * eta^s) trials that
// first run to milestone r0 = floor(max_t / eta^s). New trials fill brackets
// smallest first (s = 0, 1, ...), then start a new band. A trial that reaches its
// bracket's milestone is paused; once every live trial of the bracket has reached
// it, the bracket keeps the best ceil(n / eta) (stopping the others), multiplies
// the milestone by eta (capped at max_t) and lets the survivors resume. A bracket
// whose last milestone is reached stops its trials: no trial runs past max_t.
//
// Ray caps the next milestone at max_t minus the current one, so a bracket with
// s > 0 never lets its survivors reach max_t; here the cap is max_t itself.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "runtime/tune/scheduler.h"
#include "runtime/tune/space.h"

namespace ray::tune {
namespace {

std::string FormatTime(double t) {
  return t == std::floor(t) ? std::to_string(static_cast<int64_t>(t)) : FormatFloatRepr(t);
}

// One bracket's trials and halving state. Trials are owned by the runner and
// keep their address for the whole experiment.
class Bracket {
 public:
  Bracket(const std::string& time_attr, int max_trials, double r0, double max_t, double eta, int s,
          bool stop_last_trials)
      : time_attr_(time_attr),
        n_(max_trials),
        r_(r0),
        max_t_(max_t),
        eta_(eta),
        halves_(s),
        stop_last_trials_(stop_last_trials) {
    double n = n_, r = r_, done = 0;
    for (int i = 0; i <= s; ++i) {  // time units the bracket will spend in total
      total_work_ += n * (r - done);
      done = r;
      n = std::ceil(n / eta_);
      r = std::floor(std::min(r * eta_, max_t_));
    }
  }

  void Add(Trial* trial) {
    live_.push_back({trial, Json()});
    all_.push_back(trial);
  }
  bool Filled() const { return static_cast<int>(live_.size()) == n_; }
  bool Has(const std::string& id) const { return Find(id) != live_.end(); }

  // Every live trial has reached the milestone.
  bool CurIterDone() const {
    return std::all_of(live_.begin(), live_.end(),
                       [&](const Live& l) { return Time(l.result) >= r_; });
  }
  bool Finished() const { return stop_last_trials_ && halves_ == 0 && CurIterDone(); }

  // The trial is below the milestone (or the bracket runs its last trials on).
  bool ContinueTrial(const std::string& id) const {
    if (!stop_last_trials_ && halves_ == 0) return true;
    auto it = Find(id);
    return it != live_.end() && Time(it->result) < r_;
  }

  void Update(const std::string& id, const Json& result) {
    auto it = Find(id);
    if (it == live_.end()) return;
    progress_ += Time(result) - Time(it->result);
    it->result = result;
  }

  void Cleanup(const std::string& id) {
    auto it = Find(id);
    if (it != live_.end()) live_.erase(it);
  }

  // One halving: keeps the best ceil(n / eta) live trials by `op * metric`,
  // returns {good, bad} and moves the milestone up.
  std::pair<std::vector<Trial*>, std::vector<Trial*>> SuccessiveHalving(const std::string& metric,
                                                                        double op) {
    std::vector<Trial*> sorted;
    for (const auto& l : live_) sorted.push_back(l.trial);
    if (halves_ == 0) return {sorted, {}};  // only when trials run on past the last milestone
    --halves_;
    n_ = static_cast<int>(std::ceil(n_ / eta_));
    r_ = std::floor(std::min(r_ * eta_, max_t_));
    std::stable_sort(sorted.begin(), sorted.end(), [&](Trial* a, Trial* b) {
      return Score(a->trial_id, metric, op) < Score(b->trial_id, metric, op);
    });
    const size_t keep = std::min(sorted.size(), static_cast<size_t>(n_));
    std::vector<Trial*> bad(sorted.begin(), sorted.end() - keep);
    return {std::vector<Trial*>(sorted.end() - keep, sorted.end()), bad};
  }

  std::vector<Trial*> CurrentTrials() const {
    std::vector<Trial*> out;
    for (const auto& l : live_) out.push_back(l.trial);
    return out;
  }

  double CompletionPercentage() const {
    return Finished() ? 1.0 : std::min(progress_ / total_work_, 1.0);
  }

  // "Bracket(Max Size (n)=5, Milestone (r)=33, completed=14.6%): {PENDING: 2, RUNNING: 3}"
  std::string DebugString() const {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%.1f%%", 100 * CompletionPercentage());
    std::map<std::string, int> counts;
    for (const Trial* t : all_) ++counts[ToString(t->status)];
    std::string statuses;
    for (const auto& [name, count] : counts) {
      statuses += (statuses.empty() ? "" : ", ") + name + ": " + std::to_string(count);
    }
    return "Bracket(Max Size (n)=" + std::to_string(n_) + ", Milestone (r)=" + FormatTime(r_) +
           ", completed=" + pct + "): {" + statuses + "}";
  }

 private:
  struct Live {
    Trial* trial;
    Json result;  // the latest, null before the first
  };

  std::vector<Live>::const_iterator Find(const std::string& id) const {
    return std::find_if(live_.begin(), live_.end(),
                        [&](const Live& l) { return l.trial->trial_id == id; });
  }
  std::vector<Live>::iterator Find(const std::string& id) {
    return std::find_if(live_.begin(), live_.end(),
                        [&](const Live& l) { return l.trial->trial_id == id; });
  }
  double Time(const Json& result) const { return ResultNumber(result, time_attr_).value_or(0); }
  double Score(const std::string& id, const std::string& metric, double op) const {
    auto m = ResultNumber(Find(id)->result, metric);
    return m ? op * *m : -HUGE_VAL;
  }

  std::string time_attr_;
  int n_;     // the bracket's size, then how many survive each halving
  double r_;  // the current milestone, in time_attr units
  double max_t_;
  double eta_;
  int halves_;  // halvings left
  bool stop_last_trials_;
  double total_work_ = 0;
  double progress_ = 0;
  std::vector<Live> live_;  // in order of addition
  std::vector<Trial*> all_;
};

struct HyperBandOptions : SchedulerMetric {
  HyperBandOptions() { time_attr = "training_iteration"; }
  double max_t = 81;
  double reduction_factor = 3;
  bool stop_last_trials = true;
};

class HyperBandScheduler : public TrialScheduler {
 public:
  explicit HyperBandScheduler(const HyperBandOptions& options) : o_(options) {
    s_max_1_ =
        static_cast<int>(std::nearbyint(std::log(o_.max_t) / std::log(o_.reduction_factor))) + 1;
    bands_.emplace_back();
  }

  // Fills the current bracket; a full one is followed by the next bracket of the
  // band, a full band by a new band. Brackets with r0 < 1 are skipped.
  void OnTrialAdd(TrialRunner&, Trial& trial) override {
    if (!current_ || current_->Filled()) {
      while (true) {
        if (static_cast<int>(bands_.back().size()) == s_max_1_) bands_.emplace_back();
        auto& band = bands_.back();
        const int s = static_cast<int>(band.size());
        const double r0 = std::floor(o_.max_t * std::pow(o_.reduction_factor, -s));
        if (r0 == 0) {
          band.push_back(nullptr);
          continue;
        }
        const auto n0 = static_cast<int>(
            std::ceil(static_cast<double>(s_max_1_) / (s + 1) * std::pow(o_.reduction_factor, s)));
        band.push_back(std::make_unique<Bracket>(o_.time_attr, n0, r0, o_.max_t,
                                                 o_.reduction_factor, s, o_.stop_last_trials));
        current_ = band.back().get();
        break;
      }
    }
    current_->Add(&trial);
    trial_bracket_[trial.trial_id] = current_;
  }

  Decision OnTrialResult(TrialRunner& runner, Trial& trial, const Json& result) override {
    auto it = trial_bracket_.find(trial.trial_id);
    if (it == trial_bracket_.end()) return Decision::kContinue;
    Bracket& bracket = *it->second;
    if (!bracket.Has(trial.trial_id)) return Decision::kStop;  // lost a halving while running
    if (!ResultNumber(result, o_.time_attr)) return Decision::kContinue;
    bracket.Update(trial.trial_id, result);
    if (bracket.ContinueTrial(trial.trial_id)) return Decision::kContinue;
    return ProcessBracket(runner, bracket, &trial);
  }

  void OnTrialComplete(TrialRunner& runner, Trial& trial, const Json&) override {
    Remove(runner, trial);
  }
  void OnTrialError(TrialRunner& runner, Trial& trial) override { Remove(runner, trial); }
  void OnTrialRemove(TrialRunner& runner, Trial& trial) override { Remove(runner, trial); }

  // Fair scheduling within a band: the least complete bracket first; within it a
  // pending trial or a paused one below the milestone, in order of addition.
  Trial* ChooseTrialToRun(TrialRunner& runner) override {
    for (const auto& band : bands_) {
      std::vector<Bracket*> brackets;
      for (const auto& b : band) {
        if (b) brackets.push_back(b.get());
      }
      std::stable_sort(brackets.begin(), brackets.end(), [](Bracket* a, Bracket* b) {
        return a->CompletionPercentage() < b->CompletionPercentage();
      });
      for (Bracket* b : brackets) {
        for (Trial* t : b->CurrentTrials()) {
          const bool ready = t->status == TrialStatus::kPending ||
                             (t->status == TrialStatus::kPaused && b->ContinueTrial(t->trial_id));
          if (ready && runner.HasResources(*t)) return t;
        }
      }
    }
    return nullptr;
  }

  std::string DebugString() const override {
    size_t total = 0;
    for (const auto& band : bands_) total += band.size();
    std::string out = "Using HyperBand: num_stopped=" + std::to_string(num_stopped_) +
                      " total_brackets=" + std::to_string(total);
    for (size_t i = 0; i < bands_.size(); ++i) {
      out += "\nRound #" + std::to_string(i) + ":";
      for (const auto& b : bands_[i]) {
        if (b) out += "\n  " + b->DebugString();
      }
    }
    return out;
  }

 private:
  void Remove(TrialRunner& runner, Trial& trial) {
    auto it = trial_bracket_.find(trial.trial_id);
    if (it == trial_bracket_.end()) return;
    Bracket& bracket = *it->second;
    trial_bracket_.erase(it);
    bracket.Cleanup(trial.trial_id);
    ProcessBracket(runner, bracket, nullptr);  // may halve, or end the bracket
  }

  // Called when a trial reached the milestone (`current`, the trial reporting) or
  // left the bracket (nullptr). Halves the bracket once all live trials are at the
  // milestone; returns the decision for `current`.
  Decision ProcessBracket(TrialRunner& runner, Bracket& bracket, Trial* current) {
    if (bracket.CurrentTrials().empty() || !bracket.CurIterDone()) return Decision::kPause;
    if (bracket.Finished()) {
      for (Trial* t : bracket.CurrentTrials()) {
        if (t->status == TrialStatus::kPaused) Terminate(runner, bracket, *t);
      }
      return Decision::kStop;
    }
    Decision decision = Decision::kPause;
    auto [good, bad] = bracket.SuccessiveHalving(o_.metric, o_.metric_op);
    num_stopped_ += static_cast<int>(bad.size());
    for (Trial* t : bad) {
      if (t->status == TrialStatus::kPaused) {
        Terminate(runner, bracket, *t);
      } else {
        bracket.Cleanup(t->trial_id);  // running: stopped at its next result
        if (t == current) decision = Decision::kStop;
      }
    }
    for (Trial* t : good) {
      if (t == current && bracket.ContinueTrial(t->trial_id)) decision = Decision::kContinue;
    }
    return decision;
  }

  // Ends a paused loser of the bracket.
  void Terminate(TrialRunner& runner, Bracket& bracket, Trial& trial) {
    bracket.Cleanup(trial.trial_id);
    trial_bracket_.erase(trial.trial_id);
    runner.StopTrial(trial);
  }

  HyperBandOptions o_;
  int s_max_1_;                                               // brackets per band
  std::vector<std::vector<std::unique_ptr<Bracket>>> bands_;  // nullptr: a skipped bracket
  Bracket* current_ = nullptr;                                // the one new trials go to
  std::map<std::string, Bracket*> trial_bracket_;
  int num_stopped_ = 0;
};

}  // namespace

Result<std::unique_ptr<TrialScheduler>> MakeHyperBand(const Json& config, uint64_t) {
  KeywordArgs args("HyperBand", config);
  HyperBandOptions o;
  ReadSchedulerMetric(args, o);
  o.max_t = args.Number("max_t", o.max_t);
  o.reduction_factor = args.Number("reduction_factor", o.reduction_factor);
  o.stop_last_trials = args.Bool("stop_last_trials", o.stop_last_trials);
  args.Check(o.max_t > 0, "max_t", "must be > 0");
  args.Check(o.reduction_factor > 1, "reduction_factor", "must be > 1");
  RAY_RETURN_IF_ERROR(args.Finish());
  return std::unique_ptr<TrialScheduler>(std::make_unique<HyperBandScheduler>(o));
}

}  // namespace ray::tune
