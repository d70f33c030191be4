#include "runtime/rllib/episode_metrics.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace ray::rllib {

void EpisodeMetrics::Add(double episode_return, int64_t length, std::map<std::string, double> custom_metrics) {
  episodes_.push_back({episode_return, length, std::move(custom_metrics)});
  while (episodes_.size() > window_) episodes_.pop_front();
}

nlohmann::json EpisodeMetrics::Summary() const {
  using Json = nlohmann::json;
  Json r;
  r["custom_metrics"] = Json::object();
  if (episodes_.empty()) {
    for (const char* key : {"episode_reward_mean", "episode_reward_min", "episode_reward_max", "episode_len_mean"}) {
      r[key] = nullptr;
    }
    return r;
  }
  double sum = 0, min = episodes_.front().episode_return, max = min, length_sum = 0;
  std::map<std::string, std::vector<double>> custom;
  for (const Episode& e : episodes_) {
    sum += e.episode_return;
    min = std::min(min, e.episode_return);
    max = std::max(max, e.episode_return);
    length_sum += static_cast<double>(e.length);
    for (const auto& [name, value] : e.custom_metrics) custom[name].push_back(value);
  }
  const double n = static_cast<double>(episodes_.size());
  r["episode_reward_mean"] = sum / n;
  r["episode_reward_min"] = min;
  r["episode_reward_max"] = max;
  r["episode_len_mean"] = length_sum / n;
  for (const auto& [name, values] : custom) {
    double total = 0;
    std::vector<double> finite;
    for (double v : values) {
      total += v;
      if (!std::isnan(v)) finite.push_back(v);
    }
    r["custom_metrics"][name + "_mean"] = total / static_cast<double>(values.size());
    if (finite.empty()) {
      r["custom_metrics"][name + "_min"] = nullptr;
      r["custom_metrics"][name + "_max"] = nullptr;
    } else {
      r["custom_metrics"][name + "_min"] = *std::min_element(finite.begin(), finite.end());
      r["custom_metrics"][name + "_max"] = *std::max_element(finite.begin(), finite.end());
    }
  }
  return r;
}

}  // namespace ray::rllib
