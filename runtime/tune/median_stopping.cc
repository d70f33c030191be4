// The median stopping rule of Google Vizier (Golovin et al., "Google Vizier: A
// Service for Black-Box Optimization", KDD 2017), as Ray Tune's MedianStoppingRule
// does it.
//
// Once a trial is past grace_period (in time_attr units), each of its results at
// time t is checked: it stops when its best metric so far is strictly worse than
// the median, over the other trials that have reached t, of their running average
// metric over [grace_period, t]. With fewer than min_samples_required such trials
// it yields to waiting trials instead (pauses, at most once per min_time_slice).
// hard_stop=false pauses instead of stopping; such a trial is not judged again and
// resumes, FIFO, after the pending trials.

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "runtime/tune/scheduler.h"
#include "runtime/tune/space.h"

namespace ray::tune {
namespace {

struct MedianStoppingOptions : SchedulerMetric {
  MedianStoppingOptions() { time_attr = "time_total_s"; }
  double grace_period = 60;
  int min_samples_required = 3;
  double min_time_slice = 0;
  bool hard_stop = true;
};

class MedianStoppingRule : public TrialScheduler {
 public:
  explicit MedianStoppingRule(const MedianStoppingOptions& options) : o_(options) {}

  Decision OnTrialResult(TrialRunner& runner, Trial& trial, const Json& result) override {
    const auto t = ResultNumber(result, o_.time_attr);
    const auto metric = ResultNumber(result, o_.metric);
    if (!t || !metric || stopped_.count(trial.trial_id)) return Decision::kContinue;
    results_[trial.trial_id].push_back({*t, o_.metric_op * *metric});
    if (*t < o_.grace_period) return Decision::kContinue;

    std::vector<double> means;
    for (const auto& [id, results] : results_) {
      if (id == trial.trial_id || results.back().first < *t) continue;
      means.push_back(RunningMean(results, *t));
    }
    if (static_cast<int>(means.size()) < o_.min_samples_required) {
      return OnInsufficientSamples(runner, trial, *t);
    }
    means.erase(std::remove_if(means.begin(), means.end(), [](double m) { return std::isnan(m); }),
                means.end());
    if (means.empty()) return Decision::kContinue;
    std::sort(means.begin(), means.end());
    const size_t k = means.size() / 2;
    const double median = means.size() % 2 ? means[k] : (means[k - 1] + means[k]) / 2;
    double best = -HUGE_VAL;
    for (const auto& [time, m] : results_[trial.trial_id]) best = std::max(best, m);
    if (best >= median) return Decision::kContinue;
    stopped_.insert(trial.trial_id);
    return o_.hard_stop ? Decision::kStop : Decision::kPause;
  }

  void OnTrialComplete(TrialRunner&, Trial& trial, const Json& result) override {
    const auto t = ResultNumber(result, o_.time_attr);
    const auto metric = ResultNumber(result, o_.metric);
    if (t && metric) results_[trial.trial_id].push_back({*t, o_.metric_op * *metric});
  }

  std::string DebugString() const override {
    return "Using MedianStoppingRule: num_stopped=" + std::to_string(stopped_.size()) + ".";
  }

 private:
  // Mean metric over the results with grace_period <= time <= t (NaN if none).
  double RunningMean(const std::vector<std::pair<double, double>>& results, double t) const {
    double sum = 0;
    int n = 0;
    for (const auto& [time, m] : results) {
      if (time >= o_.grace_period && time <= t) sum += m, ++n;
    }
    return n ? sum / n : std::nan("");
  }

  // Too few trials to compare with: pause if others are waiting to run.
  Decision OnInsufficientSamples(TrialRunner& runner, Trial& trial, double t) {
    auto last = last_pause_.find(trial.trial_id);
    if (last != last_pause_.end() && t - last->second <= o_.min_time_slice) {
      return Decision::kContinue;
    }
    for (const Trial* other : runner.Trials()) {
      if (other->status == TrialStatus::kPending || other->status == TrialStatus::kPaused) {
        last_pause_[trial.trial_id] = t;
        return Decision::kPause;
      }
    }
    return Decision::kContinue;
  }

  MedianStoppingOptions o_;
  // Per trial id: (time, signed metric) of every result, in order.
  std::map<std::string, std::vector<std::pair<double, double>>> results_;
  std::set<std::string> stopped_;
  std::map<std::string, double> last_pause_;
};

}  // namespace

Result<std::unique_ptr<TrialScheduler>> MakeMedianStopping(const Json& config, uint64_t) {
  KeywordArgs args("MedianStopping", config);
  MedianStoppingOptions o;
  ReadSchedulerMetric(args, o);
  o.grace_period = args.Number("grace_period", o.grace_period);
  o.min_samples_required =
      static_cast<int>(args.Integer("min_samples_required", o.min_samples_required));
  o.min_time_slice = args.Number("min_time_slice", o.min_time_slice);
  o.hard_stop = args.Bool("hard_stop", o.hard_stop);
  args.Bool("verbose", true);  // Ray's flag for per-result logging; accepted, unused
  args.Check(o.grace_period >= 0, "grace_period", "must be >= 0");
  args.Check(o.min_samples_required >= 1, "min_samples_required", "must be >= 1");
  args.Check(o.min_time_slice >= 0, "min_time_slice", "must be >= 0");
  RAY_RETURN_IF_ERROR(args.Finish());
  return std::unique_ptr<TrialScheduler>(std::make_unique<MedianStoppingRule>(o));
}

}  // namespace ray::tune
