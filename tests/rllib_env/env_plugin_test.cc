// Envs from plugin libraries (env_plugin_loader.h) through the C boundary of
// <ray/rllib/env_abi.h>: the example plugin, a plugin whose envs fail, one built for
// another ABI version, and a job plugin that is not an env plugin.

#include <gtest/gtest.h>

#include <stdexcept>

#include "runtime/rllib/env/env_plugin_loader.h"
#include "runtime/rllib/env/env_registry.h"

namespace ray::rllib {
namespace {

TEST(EnvPluginTest, APluginsEnvsAreMadeLikeBuiltinOnes) {
  ASSERT_FALSE(GetEnvSpec("ReachTarget-v0").ok());
  ASSERT_TRUE(LoadEnvPlugin(REACH_TARGET_PLUGIN).ok());
  ASSERT_TRUE(LoadEnvPlugin(REACH_TARGET_PLUGIN).ok()) << "loading again is a no-op";
  auto spec = GetEnvSpec("ReachTarget-v0");
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ(spec->max_episode_steps, 50) << "the plugin's registration record crosses over";
  EXPECT_FALSE(spec->reward_threshold.has_value());
  auto env = MakeEnv("ReachTarget-v0");
  ASSERT_TRUE(env.ok()) << env.status().ToString();
  EXPECT_EQ((*env)->observation_space(), Space(Box({-2.0f}, {2.0f})));
  EXPECT_EQ((*env)->action_space(), Space(Box({-1.0f}, {1.0f})));
  Observation obs = (*env)->Reset(7);
  ASSERT_EQ(obs.size(), 1u);
  EXPECT_EQ((*env)->Reset(7), obs) << "the same seed, the same episode";
  // Moving towards the origin raises the reward (-|position|); the time limit (applied
  // here, from the plugin's record) ends the episode after 50 steps.
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

  EnvConfig bad{{"speed", -1}};
  auto refused = MakeEnv("ReachTarget-v0", bad);
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("env_config[\"speed\"] must be > 0"), std::string::npos)
      << refused.status().message();
}

TEST(EnvPluginTest, EnvConfigAndTheCopysIndicesReachThePlugin) {
  Status loaded = LoadEnvPlugin(BROKEN_ENV_PLUGIN);
  ASSERT_TRUE(loaded.ok()) << loaded.ToString();
  EXPECT_EQ(GetEnvSpec("Fragile-v0")->reward_threshold, 5.0);
  EnvConfig config{{"x", 2.5}};
  config.set_worker_index(3);
  config.set_vector_index(1);
  auto env = MakeEnv("Fragile-v0", config);
  ASSERT_TRUE(env.ok()) << env.status().ToString();
  EXPECT_EQ((*env)->Reset(std::nullopt), Observation({3, 1, 2.5}));
  StepResult r = (*env)->Step(Action::OfIndex(2));
  EXPECT_EQ(r.reward, 2.0) << "the action index crosses over";
  EXPECT_EQ(r.obs, Observation({3, 1, 2.5}));
}

TEST(EnvPluginTest, AThrowingEnvIsAnErrorNamingItNotACrash) {
  Status loaded = LoadEnvPlugin(BROKEN_ENV_PLUGIN);
  ASSERT_TRUE(loaded.ok()) << loaded.ToString();
  auto env = MakeEnv("Fragile-v0", EnvConfig{{"fail_after", 2}});
  ASSERT_TRUE(env.ok()) << env.status().ToString();
  (*env)->Reset(1);
  (*env)->Step(Action::OfIndex(0));
  (*env)->Step(Action::OfIndex(0));
  try {
    (*env)->Step(Action::OfIndex(0));
    FAIL() << "the plugin's exception should come back as an error";
  } catch (const std::runtime_error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find(BROKEN_ENV_PLUGIN), std::string::npos) << what;
    EXPECT_NE(what.find("Fragile-v0: Step: the motor caught fire"), std::string::npos) << what;
  }
  // The env is still usable: a new episode steps again.
  (*env)->Reset(1);
  EXPECT_NO_THROW((*env)->Step(Action::OfIndex(1)));

  auto unmakeable = MakeEnv("Unmakeable-v0");
  EXPECT_EQ(unmakeable.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(unmakeable.status().message().find("Unmakeable-v0 needs env_config[\"map\"]"),
            std::string::npos)
      << unmakeable.status().message();
  auto wrong_type = MakeEnv("Fragile-v0", EnvConfig{{"x", "far"}});
  EXPECT_NE(wrong_type.status().message().find("env_config[\"x\"] must be a number"),
            std::string::npos)
      << wrong_type.status().message();
}

TEST(EnvPluginTest, APluginOfAnotherAbiVersionIsRefusedBeforeItIsUsed) {
  auto old = LoadEnvPlugin(OLD_ABI_ENV_PLUGIN);
  EXPECT_EQ(old.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(old.message().find(OLD_ABI_ENV_PLUGIN), std::string::npos);
  EXPECT_NE(old.message().find("ABI version 1, but this ray runs version 3"), std::string::npos)
      << old.message();
}

// Dict and Tuple observation spaces cross the C boundary as trees of records and come
// back as the spaces the plugin built.
TEST(EnvPluginTest, DictAndTupleSpacesCrossTheBoundary) {
  ASSERT_TRUE(LoadEnvPlugin(SIGNED_CORRIDOR_PLUGIN).ok());
  auto dict = MakeEnv("SignedCorridor-v0");
  ASSERT_TRUE(dict.ok()) << dict.status().ToString();
  EXPECT_EQ((*dict)->observation_space(), Space(Dict({{"position", Box({0.0f}, {1.0f})}, {"sign", Discrete(2)}})));
  EXPECT_EQ((*dict)->action_space(), Space(Discrete(2)));
  Observation obs = (*dict)->Reset(3);
  EXPECT_TRUE((*dict)->observation_space().Contains(obs)) << obs.size();
  EXPECT_EQ(obs[0], 0.5f) << "the position first (keys in order), the middle cell";
  auto tuple = MakeEnv("SignedCorridorTuple-v0", EnvConfig{{"length", 4}});
  ASSERT_TRUE(tuple.ok()) << tuple.status().ToString();
  EXPECT_EQ((*tuple)->observation_space(), Space(Tuple({Discrete(2), Box({0.0f}, {1.0f})})));
  (*tuple)->Reset(1);
  StepResult r = (*tuple)->Step(Action::OfIndex(1));
  ASSERT_EQ(r.obs.size(), 2u);
  EXPECT_EQ(r.obs[1], 0.75f) << "a step right on a corridor of 4";
}

TEST(EnvPluginTest, AMalformedSpaceIsAnErrorNamingTheEnvNotACrash) {
  ASSERT_TRUE(LoadEnvPlugin(BAD_SPACE_ENV_PLUGIN).ok());
  const std::pair<const char*, const char*> cases[] = {
      {"InvertedBox-v0", "a Box with low > high at element 0"},
      {"MisshapenBox-v0", ": a Box whose size, shape and bounds disagree"},
      {"UnknownKind-v0", "unknown kind 9"},
      {"LoopingTuple-v0", "at [0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]: nested deeper than 16"},
      {"UnsortedDict-v0", "a Dict whose keys are missing, repeated or not sorted"},
      {"EmptyTuple-v0", "a Tuple of no parts"},
  };
  for (const auto& [id, why] : cases) {
    auto env = MakeEnv(id);
    ASSERT_FALSE(env.ok()) << id;
    const std::string& message = env.status().message();
    EXPECT_NE(message.find(std::string(BAD_SPACE_ENV_PLUGIN) + ": " + id + ": spaces: observation space: " +
                           "a malformed space"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(why), std::string::npos) << message;
  }
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
