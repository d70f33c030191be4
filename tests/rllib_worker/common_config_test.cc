// The COMMON_CONFIG keys beyond the basics: each works or is refused by name.

#include "runtime/rllib/common_config.h"

#include <gtest/gtest.h>

namespace ray::rllib {
namespace {

Result<CommonConfig> Parse(const std::string& json) {
  CommonConfig c;
  RAY_RETURN_IF_ERROR(ApplyConfigJson(json, CommonConfigKeys(&c)));
  RAY_RETURN_IF_ERROR(c.ValidateCommon());
  return c;
}

void ExpectRefused(const std::string& json, const std::string& named) {
  auto c = Parse(json);
  ASSERT_FALSE(c.ok()) << json;
  EXPECT_NE(c.status().message().find(named), std::string::npos) << c.status().ToString();
}

TEST(CommonConfigTest, NewKeysParseAndRoundTrip) {
  auto c = Parse(R"({"horizon": 20, "soft_horizon": true, "env_config": {"a": [1, 2]},
                     "clip_rewards": 5.0, "observation_filter": "MeanStdFilter",
                     "synchronize_filters": false, "callbacks": "/x/cb.so",
                     "evaluation_interval": 2, "evaluation_num_episodes": 3,
                     "evaluation_config": {"env_config": {"b": 1}}, "ignore_worker_failures": true,
                     "sample_async": true})");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->horizon, 20);
  EXPECT_TRUE(c->soft_horizon);
  EXPECT_EQ(c->env_config["a"], nlohmann::json({1, 2}));
  EXPECT_EQ(c->clip_rewards.limit, 5.0);
  EXPECT_EQ(c->callbacks, "/x/cb.so");
  EXPECT_EQ(c->evaluation_interval, 2);
  EXPECT_TRUE(c->sample_async);
  // The result's config reads back as the same config.
  auto again = Parse(c->CommonJson().dump());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->CommonJson(), c->CommonJson());
}

TEST(CommonConfigTest, ClipRewardsIsOffSignOrALimit) {
  EXPECT_FALSE(Parse(R"({"clip_rewards": null})")->clip_rewards.sign);
  EXPECT_FALSE(Parse(R"({"clip_rewards": false})")->clip_rewards.sign);
  RewardClip sign = Parse(R"({"clip_rewards": true})")->clip_rewards;
  EXPECT_EQ(sign.Apply(-7.5), -1);
  EXPECT_EQ(sign.Apply(0), 0);
  EXPECT_EQ(Parse(R"({"clip_rewards": 2})")->clip_rewards.Apply(-7.5), -2);
  ExpectRefused(R"({"clip_rewards": -1})", "'clip_rewards'");
}

TEST(CommonConfigTest, CallbacksAreAPluginOrRLlibsEmptyDefault) {
  EXPECT_EQ(Parse(R"({"callbacks": {"on_episode_start": null, "on_train_result": null}})")->callbacks, "");
  ExpectRefused(R"({"callbacks": {"on_episode_start": "my_module.fn"}})", "'callbacks'");
}

TEST(CommonConfigTest, BadValuesAreRefusedByName) {
  ExpectRefused(R"({"soft_horizon": true})", "'soft_horizon' needs a 'horizon'");
  ExpectRefused(R"({"horizon": 0})", "'horizon'");
  ExpectRefused(R"({"observation_filter": "ConcurrentMeanStdFilter"})", "'observation_filter'");
  ExpectRefused(R"({"env_config": [1]})", "'env_config'");
  ExpectRefused(R"({"evaluation_interval": 0})", "'evaluation_interval'");
  ExpectRefused(R"({"evaluation_num_episodes": 0})", "'evaluation_num_episodes'");
  ExpectRefused(R"({"evaluation_config": "x"})", "'evaluation_config'");
  ExpectRefused(R"({"sample_async": true, "num_workers": 0})", "'sample_async': true needs num_workers >= 1");
}

}  // namespace
}  // namespace ray::rllib
