// VectorEnv: seeding (seed + i), RLlib-style same-step auto-reset, final_obs.

#include "runtime/rllib/env/vector_env.h"

#include <gtest/gtest.h>

#include "runtime/rllib/env/env_registry.h"

namespace ray::rllib {
namespace {

TEST(VectorEnvTest, SlotIMatchesASingleEnvSeededWithSeedPlusI) {
  auto vec = VectorEnv::Make("CartPole-v1", 4);
  ASSERT_TRUE(vec.ok()) << vec.status().ToString();
  EXPECT_EQ((*vec)->num_envs(), 4);
  EXPECT_EQ((*vec)->obs_size(), 4);
  std::vector<float> obs = (*vec)->VectorReset(100);
  ASSERT_EQ(obs.size(), 16u);
  for (int i = 0; i < 4; ++i) {
    auto single = MakeEnv("CartPole-v1");
    ASSERT_TRUE(single.ok());
    Observation expected = (*single)->Reset(100 + i);
    EXPECT_EQ(std::vector<float>(obs.begin() + 4 * i, obs.begin() + 4 * i + 4), expected);
  }
  EXPECT_NE(std::vector<float>(obs.begin(), obs.begin() + 4),
            std::vector<float>(obs.begin() + 4, obs.begin() + 8));
}

// Slot i of the vector env follows exactly the trajectory of a single env with seed
// seed + i, including what that env does after its own Reset() on episode end.
TEST(VectorEnvTest, AutoResetReportsFinalObsAndStartsTheNextEpisode) {
  constexpr int kN = 3;
  auto vec = VectorEnv::Make("CartPole-v1", kN);
  ASSERT_TRUE(vec.ok());
  (*vec)->VectorReset(7);
  std::vector<std::unique_ptr<Env>> singles;
  for (int i = 0; i < kN; ++i) {
    singles.push_back(std::move(MakeEnv("CartPole-v1")).value());
    singles.back()->Reset(7 + i);
  }
  VectorStepResult result;
  int episodes_ended = 0;
  for (int t = 0; t < 300; ++t) {
    std::vector<Action> actions;
    for (int i = 0; i < kN; ++i) actions.push_back(Action::OfIndex((t * (i + 1)) % 3 == 0));
    (*vec)->VectorStep(actions, &result);
    for (int i = 0; i < kN; ++i) {
      StepResult expected = singles[i]->Step(actions[i]);
      ASSERT_EQ(result.rewards[i], expected.reward);
      ASSERT_EQ(static_cast<bool>(result.terminated[i]), expected.terminated);
      ASSERT_EQ(static_cast<bool>(result.truncated[i]), expected.truncated);
      std::vector<float> slot(result.obs.begin() + 4 * i, result.obs.begin() + 4 * i + 4);
      if (expected.terminated || expected.truncated) {
        ++episodes_ended;
        EXPECT_TRUE(result.done(i));
        EXPECT_EQ(result.final_obs[i], expected.obs);
        Observation first = singles[i]->Reset(std::nullopt);
        EXPECT_EQ(slot, first);
        EXPECT_TRUE((*vec)->observation_space().Contains(slot));
      } else {
        EXPECT_TRUE(result.final_obs[i].empty());
        EXPECT_EQ(slot, expected.obs);
      }
    }
  }
  EXPECT_GT(episodes_ended, 5);
}

TEST(VectorEnvTest, SameSeedSameRollout) {
  auto a = VectorEnv::Make("Acrobot-v1", 2);
  auto b = VectorEnv::Make("Acrobot-v1", 2);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ((*a)->VectorReset(3), (*b)->VectorReset(3));
  VectorStepResult ra, rb;
  for (int t = 0; t < 50; ++t) {
    std::vector<Action> actions = {Action::OfIndex(t % 3), Action::OfIndex((t / 2) % 3)};
    (*a)->VectorStep(actions, &ra);
    (*b)->VectorStep(actions, &rb);
    ASSERT_EQ(ra.obs, rb.obs);
  }
}

TEST(VectorEnvTest, ResetAtAndErrors) {
  auto vec = VectorEnv::Make("Pendulum-v1", 2, {{"g", 9.0}});
  ASSERT_TRUE(vec.ok());
  (*vec)->VectorReset(0);
  auto single = MakeEnv("Pendulum-v1");
  EXPECT_EQ((*vec)->ResetAt(1, 55), (*single)->Reset(55));
  EXPECT_EQ((*vec)->action_space().ToString(), "Box(1,)");
  EXPECT_EQ(VectorEnv::Make("CartPole-v1", 0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(VectorEnv::Make("Nope-v0", 2).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace ray::rllib
