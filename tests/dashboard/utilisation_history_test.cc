#include "runtime/dashboard/utilisation_history.h"

#include <gtest/gtest.h>

namespace ray::dashboard {
namespace {

using nlohmann::json;

json Node(const std::string& state, double cpu_total, double cpu_free,
          const std::string& id = "n1") {
  return {{"node_id", id}, {"state", state},
          {"resources_total", {{"CPU", cpu_total}, {"GPU", 1.0}}},
          {"resources_available", {{"CPU", cpu_free}}}};
}

TEST(UtilisationHistoryTest, SumsAliveNodesAndKeepsTheNewestSamples) {
  UtilisationHistory history(2);
  history.Add(1, json::array({Node("ALIVE", 4, 1, "aa"), Node("ALIVE", 2, 2, "bb"),
                              Node("DEAD", 8, 0, "cc")}));
  json samples = history.ToJson();
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(samples[0]["time_ms"], 1);
  EXPECT_EQ(samples[0]["total"]["CPU"], 6.0);
  EXPECT_EQ(samples[0]["used"]["CPU"], 3.0);
  // A resource with no "available" entry counts as unused.
  EXPECT_EQ(samples[0]["total"]["GPU"], 2.0);
  EXPECT_EQ(samples[0]["used"]["GPU"], 0.0);
  // Each ALIVE node's own use, for a line per node.
  EXPECT_EQ(samples[0]["nodes"].size(), 2u) << samples[0].dump();
  EXPECT_EQ(samples[0]["nodes"]["aa"]["CPU"], 3.0);
  EXPECT_EQ(samples[0]["nodes"]["bb"]["CPU"], 0.0);
  history.Add(2, json::array());
  history.Add(3, json::array({Node("ALIVE", 1, 0)}));
  samples = history.ToJson();
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0]["time_ms"], 2);
  EXPECT_TRUE(samples[0]["total"].empty());
  EXPECT_EQ(samples[1]["used"]["CPU"], 1.0);
}

}  // namespace
}  // namespace ray::dashboard
