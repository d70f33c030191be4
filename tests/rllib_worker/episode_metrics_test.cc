// EpisodeMetrics: RLlib's summarize_episodes over the smoothing window.

#include "runtime/rllib/episode_metrics.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ray::rllib {
namespace {

TEST(EpisodeMetricsTest, NoEpisodesGiveNulls) {
  nlohmann::json s = EpisodeMetrics(10).Summary();
  EXPECT_TRUE(s["episode_reward_mean"].is_null());
  EXPECT_TRUE(s["episode_len_mean"].is_null());
  EXPECT_EQ(s["custom_metrics"], nlohmann::json::object());
}

TEST(EpisodeMetricsTest, SummarisesTheLastWindowEpisodes) {
  EpisodeMetrics m(3);
  m.Add(100, 10);
  m.Add(1, 2, {{"speed", 4}});
  m.Add(2, 4, {{"speed", 6}, {"hits", 1}});
  m.Add(6, 6, {{"speed", 2}});
  nlohmann::json s = m.Summary();
  EXPECT_EQ(m.size(), 3u) << "the first episode left the window";
  EXPECT_EQ(s["episode_reward_mean"], 3.0);
  EXPECT_EQ(s["episode_reward_min"], 1.0);
  EXPECT_EQ(s["episode_reward_max"], 6.0);
  EXPECT_EQ(s["episode_len_mean"], 4.0);
  EXPECT_EQ(s["custom_metrics"]["speed_mean"], 4.0);
  EXPECT_EQ(s["custom_metrics"]["speed_min"], 2.0);
  EXPECT_EQ(s["custom_metrics"]["speed_max"], 6.0);
  EXPECT_EQ(s["custom_metrics"]["hits_mean"], 1.0) << "over the episodes that report it";
  EXPECT_EQ(s["custom_metrics"].size(), 6u);
}

TEST(EpisodeMetricsTest, NanCountsInTheMeanOnly) {
  EpisodeMetrics m(5);
  m.Add(0, 1, {{"x", NAN}});
  m.Add(0, 1, {{"x", 3}});
  nlohmann::json s = m.Summary();
  EXPECT_EQ(s["custom_metrics"]["x_min"], 3.0);
  EXPECT_EQ(s["custom_metrics"]["x_max"], 3.0);
  EXPECT_TRUE(std::isnan(s["custom_metrics"]["x_mean"].get<double>())) << "as numpy's mean";
}

}  // namespace
}  // namespace ray::rllib
