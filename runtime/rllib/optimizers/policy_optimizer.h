#pragma once
// What every policy optimizer reports, as RLlib's PolicyOptimizer (catalog RL-110):
// num_steps_sampled, num_steps_trained and the timers of its phases (RLlib's TimerStat,
// reported as the mean over the last steps in ms), and the PolicyOptimizer interface
// the trainer drives. Pure code; not thread-safe.

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <iterator>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include <ray/rllib/policy.h>

namespace ray::rllib {

// RLlib's TimerStat: the mean of the last `window` durations.
class TimerStat {
 public:
  explicit TimerStat(size_t window = 10) : window_(window) {}
  void Push(double ms) {
    samples_.push_back(ms);
    if (samples_.size() > window_) samples_.pop_front();
  }
  double mean_ms() const {
    return samples_.empty() ? 0 : std::accumulate(samples_.begin(), samples_.end(), 0.0) / samples_.size();
  }
  // Times the scope it lives in into `stat`.
  class Scope {
   public:
    explicit Scope(TimerStat* stat) : stat_(stat), start_(std::chrono::steady_clock::now()) {}
    ~Scope() {
      stat_->Push(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count());
    }

   private:
    TimerStat* stat_;
    std::chrono::steady_clock::time_point start_;
  };

 private:
  size_t window_;
  std::deque<double> samples_;
};

// What one optimizer step produced: the learner's stats and the episodes that ended
// on the workers while it sampled.
struct OptimizerStep {
  LearnerStats learner;
  std::vector<double> episode_returns;
  std::vector<int64_t> episode_lengths;
  // Each episode's custom metrics (callbacks), parallel to episode_returns.
  std::vector<std::map<std::string, double>> episode_custom_metrics;
  int64_t steps_sampled = 0;  // env steps this step

  // Appends the episodes a worker reported (a SampleResult or WorkerGradients).
  template <typename Report>
  void AddEpisodes(Report& from) {
    auto append = [](auto& to, auto& more) {
      to.insert(to.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    };
    append(episode_returns, from.episode_returns);
    append(episode_lengths, from.episode_lengths);
    append(episode_custom_metrics, from.episode_custom_metrics);
  }
};

// The counters every optimizer keeps; the result's "info" holds them.
struct PolicyOptimizerStats {
  int64_t num_steps_sampled = 0;
  int64_t num_steps_trained = 0;
  std::map<std::string, TimerStat> timers;  // "sample", "grad", "update", ...
  std::map<std::string, double> values;     // an optimizer's own figures (reported as is)

  // {"num_steps_sampled": ..., "num_steps_trained": ..., "<timer>_time_ms": ...}.
  std::map<std::string, double> ToMap() const {
    std::map<std::string, double> out = {{"num_steps_sampled", static_cast<double>(num_steps_sampled)},
                                         {"num_steps_trained", static_cast<double>(num_steps_trained)}};
    for (const auto& [name, t] : timers) out[name + "_time_ms"] = t.mean_ms();
    for (const auto& [name, v] : values) out[name] = v;
    return out;
  }
};

// What the trainer drives: one Step() per call, its counters, and the counters a
// checkpoint restores.
class PolicyOptimizer {
 public:
  virtual ~PolicyOptimizer() = default;
  virtual OptimizerStep Step() = 0;
  virtual const PolicyOptimizerStats& stats() const = 0;
  virtual void RestoreCounters(int64_t sampled, int64_t trained) = 0;
  // Runs fn while the optimizer does not touch the learning policy (an optimizer that
  // learns on a thread of its own waits for its current learn step).
  virtual void WithLearnerPaused(const std::function<void()>& fn) { fn(); }
};

}  // namespace ray::rllib
