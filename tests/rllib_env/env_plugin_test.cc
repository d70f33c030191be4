// Envs from a plugin library (env_plugin.h), with the example plugin built by the tree.

#include <gtest/gtest.h>

#include "runtime/rllib/env/env_plugin.h"

namespace ray::rllib {
namespace {

TEST(EnvPluginTest, APluginsEnvsAreMadeLikeBuiltinOnes) {
  ASSERT_FALSE(GetEnvSpec("ReachTarget-v0").ok());
  ASSERT_TRUE(LoadEnvPlugin(REACH_TARGET_PLUGIN).ok());
  ASSERT_TRUE(LoadEnvPlugin(REACH_TARGET_PLUGIN).ok()) << "loading again is a no-op";
  auto env = MakeEnv("ReachTarget-v0");
  ASSERT_TRUE(env.ok()) << env.status().ToString();
  EXPECT_TRUE((*env)->action_space().is_box());
  Observation obs = (*env)->Reset(7);
  ASSERT_EQ(obs.size(), 1u);
  // Moving towards the origin raises the reward (-|position|); the plugin's time
  // limit ends the episode after 50 steps.
  float towards = obs[0] > 0 ? -1.0f : 1.0f;
  double first = 0, last = 0;
  int steps = 0;
  for (StepResult r; !r.truncated && steps < 100; ++steps) {
    r = (*env)->Step(Action::OfValues({towards * (steps < 5 ? 1.0f : 0.0f)}));
    if (steps == 0) first = r.reward;
    last = r.reward;
  }
  EXPECT_EQ(steps, 50);
  EXPECT_GT(last, first);
}

TEST(EnvPluginTest, FilesThatAreNotEnvPluginsAreRefusedByName) {
  auto missing = LoadEnvPlugin("/nonexistent/envs.so");
  EXPECT_EQ(missing.code(), StatusCode::kNotFound);
  EXPECT_NE(missing.message().find("/nonexistent/envs.so"), std::string::npos);
  auto job = LoadEnvPlugin(TUTORIAL_PLUGIN);
  EXPECT_EQ(job.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(job.message().find("not an env plugin"), std::string::npos) << job.message();
}

}  // namespace
}  // namespace ray::rllib
