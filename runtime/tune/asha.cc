// Asynchronous Successive Halving (ASHA): Li, Jamieson, Rostamizadeh, Gonina,
// Hardt, Recht, Talwalkar, "A System for Massively Parallel Hyperparameter Tuning"
// (MLSys 2020, arXiv 1810.05934), as Ray Tune's AsyncHyperBandScheduler does it.
//
// Bracket s has rungs at grace_period * rf^(k + s) time units, k = 0, 1, ... while
// the rung stays within max_t. When a trial first reaches a rung, its metric is
// compared with the (1 - 1/rf) quantile of the metrics recorded at that rung so far
// (linear interpolation, NaN ignored: numpy's nanpercentile): below it, the trial
// stops. Either way its metric joins the rung. Nobody waits for stragglers: a trial
// is judged against the ones that got there before it. Every trial stops at max_t.
// With several brackets, a new trial joins one at random with probability
// softmax(number of rungs), so the bracket with the most rungs is the likeliest.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "runtime/tune/scheduler.h"
#include "runtime/tune/space.h"

namespace ray::tune {
namespace {

class Bracket {
 public:
  Bracket(double min_t, double max_t, double rf, int s, bool stop_last_trials)
      : rf_(rf), stop_last_trials_(stop_last_trials) {
    const int num_rungs = static_cast<int>(std::log(max_t / min_t) / std::log(rf) - s + 1);
    for (int k = num_rungs - 1; k >= 0; --k) rungs_.push_back({min_t * std::pow(rf, k + s), {}});
  }

  size_t NumRungs() const { return rungs_.size(); }

  // `reward` is already signed so that larger is better.
  Decision OnResult(const std::string& trial_id, double t, double reward) {
    for (auto& rung : rungs_) {  // highest milestone first
      const bool recorded = rung.recorded.count(trial_id) > 0;
      if (t >= rung.milestone && recorded && !stop_last_trials_) break;
      if (t < rung.milestone || recorded) continue;
      const std::optional<double> cutoff = Cutoff(rung);
      rung.recorded[trial_id] = reward;
      return cutoff && reward < *cutoff ? Decision::kStop : Decision::kContinue;
    }
    return Decision::kContinue;
  }

  // "Bracket: Iter 64.000: None | Iter 16.000: 0.5 | ..."
  std::string DebugString() const {
    std::string out = "Bracket: ";
    for (size_t i = 0; i < rungs_.size(); ++i) {
      char milestone[64];
      std::snprintf(milestone, sizeof milestone, "Iter %.3f: ", rungs_[i].milestone);
      const auto cutoff = Cutoff(rungs_[i]);
      out +=
          (i ? " | " : "") + std::string(milestone) + (cutoff ? FormatFloatRepr(*cutoff) : "None");
    }
    return out;
  }

 private:
  struct Rung {
    double milestone;
    std::map<std::string, double> recorded;  // trial id -> signed metric
  };

  // numpy.nanpercentile(recorded, (1 - 1/rf) * 100); nullopt for an empty rung.
  std::optional<double> Cutoff(const Rung& rung) const {
    if (rung.recorded.empty()) return std::nullopt;
    std::vector<double> v;
    for (const auto& [id, r] : rung.recorded) {
      if (!std::isnan(r)) v.push_back(r);
    }
    if (v.empty()) return std::nan("");
    std::sort(v.begin(), v.end());
    const double rank = (1 - 1 / rf_) * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<size_t>(std::floor(rank));
    const size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (rank - static_cast<double>(lo)) * (v[hi] - v[lo]);
  }

  double rf_;
  bool stop_last_trials_;
  std::vector<Rung> rungs_;
};

struct AshaOptions : SchedulerMetric {
  AshaOptions() { time_attr = "training_iteration"; }
  double max_t = 100;
  double grace_period = 1;
  double reduction_factor = 4;
  int brackets = 1;
  bool stop_last_trials = true;  // stop trials at max_t
};

class AsyncHyperBandScheduler : public TrialScheduler {
 public:
  AsyncHyperBandScheduler(const AshaOptions& options, uint64_t seed) : o_(options), rng_(seed) {
    for (int s = 0; s < o_.brackets; ++s) {
      brackets_.emplace_back(o_.grace_period, o_.max_t, o_.reduction_factor, s,
                             o_.stop_last_trials);
    }
  }

  void OnTrialAdd(TrialRunner&, Trial& trial) override { trial_bracket_[trial.trial_id] = Pick(); }

  Decision OnTrialResult(TrialRunner&, Trial& trial, const Json& result) override {
    const auto t = ResultNumber(result, o_.time_attr);
    const auto metric = ResultNumber(result, o_.metric);
    if (!t || !metric) return Decision::kContinue;
    Decision decision = Decision::kStop;
    if (*t < o_.max_t || !o_.stop_last_trials) {
      decision = BracketOf(trial).OnResult(trial.trial_id, *t, o_.metric_op * *metric);
    }
    if (decision == Decision::kStop) ++num_stopped_;
    return decision;
  }

  void OnTrialComplete(TrialRunner&, Trial& trial, const Json& result) override {
    const auto t = ResultNumber(result, o_.time_attr);
    const auto metric = ResultNumber(result, o_.metric);
    if (t && metric) BracketOf(trial).OnResult(trial.trial_id, *t, o_.metric_op * *metric);
    trial_bracket_.erase(trial.trial_id);
  }

  void OnTrialRemove(TrialRunner&, Trial& trial) override { trial_bracket_.erase(trial.trial_id); }

  std::string DebugString() const override {
    std::string out = "Using AsyncHyperBand: num_stopped=" + std::to_string(num_stopped_);
    for (const auto& b : brackets_) {
      out += '\n';
      out += b.DebugString();
    }
    return out;
  }

 private:
  // A bracket drawn with probability softmax(number of rungs).
  size_t Pick() {
    size_t most = 0;
    for (const auto& b : brackets_) most = std::max(most, b.NumRungs());
    std::vector<double> weights;
    double total = 0;
    for (const auto& b : brackets_) {
      weights.push_back(std::exp(static_cast<double>(b.NumRungs()) - static_cast<double>(most)));
      total += weights.back();
    }
    double u = UniformReal(rng_) * total;
    for (size_t i = 0; i < weights.size(); ++i) {
      if ((u -= weights[i]) < 0) return i;
    }
    return weights.size() - 1;
  }

  // A trial the scheduler was not told about (e.g. restored) joins a bracket now.
  Bracket& BracketOf(const Trial& trial) {
    auto it = trial_bracket_.find(trial.trial_id);
    if (it == trial_bracket_.end()) it = trial_bracket_.emplace(trial.trial_id, Pick()).first;
    return brackets_[it->second];
  }

  AshaOptions o_;
  Rng rng_;
  std::vector<Bracket> brackets_;
  std::map<std::string, size_t> trial_bracket_;
  int num_stopped_ = 0;
};

}  // namespace

Result<std::unique_ptr<TrialScheduler>> MakeAsyncHyperBand(const Json& config, uint64_t seed) {
  KeywordArgs args("AsyncHyperBand", config);
  AshaOptions o;
  ReadSchedulerMetric(args, o);
  o.max_t = args.Number("max_t", o.max_t);
  o.grace_period = args.Number("grace_period", o.grace_period);
  o.reduction_factor = args.Number("reduction_factor", o.reduction_factor);
  o.brackets = static_cast<int>(args.Integer("brackets", o.brackets));
  o.stop_last_trials = args.Bool("stop_last_trials", o.stop_last_trials);
  args.Check(o.max_t > 0, "max_t", "must be > 0");
  args.Check(o.grace_period > 0, "grace_period", "must be > 0");
  args.Check(o.grace_period <= o.max_t, "grace_period", "must be <= max_t");
  args.Check(o.reduction_factor > 1, "reduction_factor", "must be > 1");
  args.Check(o.brackets > 0, "brackets", "must be > 0");
  RAY_RETURN_IF_ERROR(args.Finish());
  return std::unique_ptr<TrialScheduler>(std::make_unique<AsyncHyperBandScheduler>(o, seed));
}

}  // namespace ray::tune
