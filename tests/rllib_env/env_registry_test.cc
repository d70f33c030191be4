// The env registry: builtin registrations, MakeEnv, errors, runtime registration, and
// EnvConfig reads.

#include "runtime/rllib/env/env_registry.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "algorithms/envs/dummy_env.h"
#include "runtime/rllib/env/time_limit.h"

namespace ray::rllib {
namespace {

TEST(EnvRegistryTest, BuiltinEnvsAreRegisteredWithGymnasiumSpecs) {
  const std::vector<std::string> names = RegisteredEnvs();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  struct Expected {
    const char* id;
    int steps;
    std::optional<double> threshold;
  };
  for (const Expected& e :
       {Expected{"CartPole-v0", 200, 195.0}, Expected{"CartPole-v1", 500, 475.0},
        Expected{"MountainCar-v0", 200, -110.0}, Expected{"MountainCarContinuous-v0", 999, 90.0},
        Expected{"Pendulum-v1", 200, std::nullopt}, Expected{"Acrobot-v1", 500, -100.0}}) {
    EXPECT_NE(std::find(names.begin(), names.end(), e.id), names.end()) << e.id;
    auto spec = GetEnvSpec(e.id);
    ASSERT_TRUE(spec.ok()) << e.id;
    EXPECT_EQ(spec->id, e.id);
    EXPECT_EQ(spec->max_episode_steps, e.steps) << e.id;
    EXPECT_EQ(spec->reward_threshold, e.threshold) << e.id;
  }
}

TEST(EnvRegistryTest, MakeEnvWrapsInTimeLimitAndSetsSpec) {
  auto made = MakeEnv("CartPole-v1");
  ASSERT_TRUE(made.ok());
  auto* limit = dynamic_cast<TimeLimit*>(made->get());
  ASSERT_NE(limit, nullptr);
  EXPECT_EQ(limit->max_episode_steps(), 500);
  EXPECT_EQ((*made)->spec().id, "CartPole-v1");
  EXPECT_EQ((*made)->unwrapped()->spec().id, "CartPole-v1");
  EXPECT_NE((*made)->unwrapped(), made->get());
}

TEST(EnvRegistryTest, UnknownNameIsNotFoundAndListsKnownEnvs) {
  auto made = MakeEnv("CartPole-v9");
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().code(), StatusCode::kNotFound);
  const std::string& message = made.status().message();
  EXPECT_NE(message.find("CartPole-v9"), std::string::npos);
  for (const std::string& name : RegisteredEnvs()) {
    EXPECT_NE(message.find(name), std::string::npos) << message;
  }
  EXPECT_EQ(GetEnvSpec("nope").status().code(), StatusCode::kNotFound);
}

TEST(EnvRegistryTest, RuntimeRegistrationLikeRllibRegisterEnv) {
  EnvFactory factory = [](const EnvConfig& config) -> Result<std::unique_ptr<Env>> {
    RAY_ASSIGN_OR_RETURN(int64_t length, config.GetInt("corridor_length", 3));
    return std::unique_ptr<Env>(std::make_unique<DummyEnv>(static_cast<int>(length)));
  };
  ASSERT_TRUE(RegisterEnv({"MyCorridor-v0", std::nullopt, std::nullopt}, factory).ok());
  EXPECT_EQ(RegisterEnv({"MyCorridor-v0", 10, std::nullopt}, factory).code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(RegisterEnv({"", 10, std::nullopt}, factory).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RegisterEnv({"NoFactory-v0", 10, std::nullopt}, nullptr).code(),
            StatusCode::kInvalidArgument);

  auto made = MakeEnv("MyCorridor-v0", {{"corridor_length", 2}});
  ASSERT_TRUE(made.ok());
  EXPECT_EQ(dynamic_cast<TimeLimit*>(made->get()), nullptr);  // no max_episode_steps
  (*made)->Reset(0);
  EXPECT_FALSE((*made)->Step(Action::OfIndex(1)).terminated);
  StepResult r = (*made)->Step(Action::OfIndex(1));
  EXPECT_TRUE(r.terminated);
  EXPECT_EQ(r.reward, 1.0);
}

TEST(EnvRegistryTest, FactoryErrorsPropagate) {
  auto made = MakeEnv("Dummy-v0", {{"corridor_length", 2.5}});
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(made.status().message().find("corridor_length"), std::string::npos);
  EXPECT_FALSE(MakeEnv("Dummy-v0", {{"corridor_length", 0}}).ok());
  EXPECT_FALSE(MakeEnv("Pendulum-v1", {{"g", "strong"}}).ok());
}

TEST(EnvRegistryTest, DummyTemplateEnvBehaves) {
  auto made = MakeEnv("Dummy-v0");
  ASSERT_TRUE(made.ok());
  Env& env = **made;
  EXPECT_EQ(env.Reset(0), (Observation{0.0f}));
  EXPECT_EQ(env.Step(Action::OfIndex(0)).obs, (Observation{0.0f}));  // wall at 0
  double total = 0;
  StepResult r;
  for (int i = 0; i < 5; ++i) {
    r = env.Step(Action::OfIndex(1));
    total += r.reward;
  }
  EXPECT_TRUE(r.terminated);
  EXPECT_NEAR(total, 1.0 - 0.4, 1e-12);
  // Walking left forever is cut at 100 steps by the TimeLimit.
  env.Reset(std::nullopt);
  for (int t = 1; t <= 100; ++t) {
    r = env.Step(Action::OfIndex(0));
    ASSERT_EQ(r.truncated, t == 100);
  }
}

TEST(EnvConfigTest, TypedReads) {
  EnvConfig config{{"g", 9.81}, {"n", 3}, {"flag", true}, {"mode", "nips"}};
  EXPECT_EQ(*config.GetDouble("g", 0), 9.81);
  EXPECT_EQ(*config.GetDouble("missing", 1.5), 1.5);
  EXPECT_EQ(*config.GetInt("n", 0), 3);
  EXPECT_FALSE(config.GetInt("g", 0).ok());
  EXPECT_TRUE(*config.GetBool("flag", false));
  EXPECT_FALSE(config.GetBool("n", false).ok());
  EXPECT_EQ(*config.GetString("mode", ""), "nips");
  EXPECT_EQ(config.GetString("g", "").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(config.GetDouble("mode", 0).status().code(), StatusCode::kInvalidArgument);
  config.Set("g", 3.7);
  EXPECT_EQ(*config.GetDouble("g", 0), 3.7);
  EXPECT_TRUE(config.Has("mode"));
  config.set_worker_index(2);
  config.set_vector_index(5);
  EXPECT_EQ(config.worker_index(), 2);
  EXPECT_EQ(config.vector_index(), 5);
}

}  // namespace
}  // namespace ray::rllib
