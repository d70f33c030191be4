#pragma once
// RLlib's summarize_episodes over a sliding window of finished episodes: the
// episode_reward_mean/min/max, episode_len_mean and custom_metrics keys of a
// training result (custom metric `m` as m_mean, m_min and m_max; NaN values count
// in the mean only, as RLlib). Pure code; not thread-safe.

#include <cstdint>
#include <deque>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace ray::rllib {

class EpisodeMetrics {
 public:
  // Keeps the last `window` episodes (metrics_smoothing_episodes).
  explicit EpisodeMetrics(size_t window) : window_(window) {}

  void Add(double episode_return, int64_t length, std::map<std::string, double> custom_metrics = {});
  size_t size() const { return episodes_.size(); }

  // {"episode_reward_mean", "episode_reward_min", "episode_reward_max",
  //  "episode_len_mean", "custom_metrics": {...}}; the episode keys are null while
  // no episode has finished.
  nlohmann::json Summary() const;

 private:
  struct Episode {
    double episode_return;
    int64_t length;
    std::map<std::string, double> custom_metrics;
  };
  size_t window_;
  std::deque<Episode> episodes_;
};

}  // namespace ray::rllib
