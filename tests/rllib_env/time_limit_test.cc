// TimeLimit: truncation exactly at max_episode_steps, as Gymnasium's wrapper.

#include "runtime/rllib/env/time_limit.h"

#include <gtest/gtest.h>

#include "algorithms/envs/dummy_env.h"

namespace ray::rllib {
namespace {

// Never terminates: counts steps, terminates only when told to.
class CountingEnv : public Env {
 public:
  Observation Reset(std::optional<uint64_t> seed) override {
    SeedRng(seed);
    steps_ = 0;
    return {0.0f};
  }
  StepResult Step(const Action& action) override {
    ++steps_;
    return {{static_cast<float>(steps_)}, 1.0, action.index == 1, false};
  }
  const Space& observation_space() const override { return obs_; }
  const Space& action_space() const override { return act_; }

 private:
  int steps_ = 0;
  Space obs_ = Box::Uniform(0, 1e6, {1});
  Space act_ = Discrete(2);
};

TEST(TimeLimitTest, TruncatesAtExactlyMaxEpisodeSteps) {
  TimeLimit env(std::make_unique<CountingEnv>(), 5);
  for (int episode = 0; episode < 2; ++episode) {
    env.Reset(std::nullopt);
    for (int t = 1; t <= 5; ++t) {
      StepResult r = env.Step(Action::OfIndex(0));
      EXPECT_EQ(r.truncated, t == 5) << t;
      EXPECT_FALSE(r.terminated);
      EXPECT_EQ(env.elapsed_steps(), t);
    }
    // Past the limit: still truncated (Gymnasium does not stop you).
    EXPECT_TRUE(env.Step(Action::OfIndex(0)).truncated);
  }
}

TEST(TimeLimitTest, TerminatedAndTruncatedOnTheSameStep) {
  TimeLimit env(std::make_unique<CountingEnv>(), 3);
  env.Reset(0);
  env.Step(Action::OfIndex(0));
  env.Step(Action::OfIndex(0));
  StepResult r = env.Step(Action::OfIndex(1));
  EXPECT_TRUE(r.terminated);
  EXPECT_TRUE(r.truncated);
}

TEST(TimeLimitTest, ForwardsSpacesAndUnwrapped) {
  auto inner = std::make_unique<DummyEnv>(4);
  Env* raw = inner.get();
  TimeLimit env(std::move(inner), 10);
  EXPECT_EQ(env.unwrapped(), raw);
  EXPECT_EQ(env.action_space(), raw->action_space());
  EXPECT_EQ(env.observation_space(), raw->observation_space());
  EXPECT_EQ(env.max_episode_steps(), 10);
}

}  // namespace
}  // namespace ray::rllib
