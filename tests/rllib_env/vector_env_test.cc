// VectorEnv: seeding (seed + i), RLlib-style same-step auto-reset, final_obs, one-hot
// Discrete observations.

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

// An env whose observations are a Discrete(4) index: counts 0, 1, 2, then index 7
// (out of the space) once `bad_after` steps passed.
class Counter : public Env {
 public:
  explicit Counter(int bad_after) : bad_after_(bad_after) {}
  Observation Reset(std::optional<uint64_t>) override {
    t_ = 0;
    return {0.f};
  }
  StepResult Step(const Action&) override {
    ++t_;
    return {{static_cast<float>(t_ > bad_after_ ? 7 : t_ % 4)}, 1.0, t_ == 3, false};
  }
  const Space& observation_space() const override { return obs_; }
  const Space& action_space() const override { return act_; }

 private:
  int bad_after_;
  int t_ = 0;
  Space obs_ = Discrete(4);
  Space act_ = Discrete(2);
};

TEST(VectorEnvTest, DiscreteObservationsAreOneHot) {
  std::vector<std::unique_ptr<Env>> envs;
  envs.push_back(std::make_unique<Counter>(100));
  VectorEnv vec(std::move(envs));
  ASSERT_EQ(vec.obs_size(), 4);
  EXPECT_EQ(vec.VectorReset(std::nullopt), (std::vector<float>{1, 0, 0, 0}));
  VectorStepResult step;
  vec.VectorStep({Action::OfIndex(0)}, &step);
  EXPECT_EQ(step.obs, (std::vector<float>{0, 1, 0, 0}));
  vec.VectorStep({Action::OfIndex(0)}, &step);
  vec.VectorStep({Action::OfIndex(0)}, &step);  // terminates at 3, resets to 0
  EXPECT_EQ(step.final_obs[0], (std::vector<float>{0, 0, 0, 1}));
  EXPECT_EQ(step.obs, (std::vector<float>{1, 0, 0, 0}));
  EXPECT_EQ(vec.ResetAt(0, std::nullopt), (std::vector<float>{1, 0, 0, 0}));

  std::vector<std::unique_ptr<Env>> bad;
  bad.push_back(std::make_unique<Counter>(1));
  VectorEnv broken(std::move(bad));
  broken.VectorReset(std::nullopt);
  broken.VectorStep({Action::OfIndex(0)}, &step);
  try {
    broken.VectorStep({Action::OfIndex(0)}, &step);
    FAIL() << "index 7 of Discrete(4) was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("Discrete(4)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("env (unregistered): "), std::string::npos) << e.what();
  }
}

// An env of Dict observations {"gear": Discrete(3), "speed": Box(1,)}, laid out [gear,
// speed]; its action space is `actions`.
class Gearbox : public Env {
 public:
  explicit Gearbox(Space actions) : act_(std::move(actions)) {}
  Observation Reset(std::optional<uint64_t>) override { return {2, 0.5f}; }
  StepResult Step(const Action&) override { return {{1, 0.25f}, 1.0, true, false}; }
  const Space& observation_space() const override { return obs_; }
  const Space& action_space() const override { return act_; }

 private:
  Space obs_ = Dict({{"speed", Box::Uniform(0, 1, {1})}, {"gear", Discrete(3)}});
  Space act_;
};

TEST(VectorEnvTest, DictObservationsAreFlattenedAndTupleActionsRefused) {
  std::vector<std::unique_ptr<Env>> envs;
  envs.push_back(std::make_unique<Gearbox>(Discrete(2)));
  VectorEnv vec(std::move(envs));
  ASSERT_EQ(vec.obs_size(), 4);
  EXPECT_EQ(vec.VectorReset(std::nullopt), (std::vector<float>{0, 0, 1, 0.5f}));
  VectorStepResult step;
  vec.VectorStep({Action::OfIndex(0)}, &step);
  EXPECT_EQ(step.final_obs[0], (std::vector<float>{0, 1, 0, 0.25f}));

  ASSERT_TRUE(RegisterEnv({"TupleActions-v0", std::nullopt, std::nullopt}, [](const EnvConfig&) {
                return Result<std::unique_ptr<Env>>(std::make_unique<Gearbox>(Tuple({Discrete(2), Discrete(2)})));
              }).ok());
  auto refused = VectorEnv::Make("TupleActions-v0", 1);
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("env TupleActions-v0: its action space Tuple(Discrete(2), Discrete(2)) "
                                            "is not supported"),
            std::string::npos)
      << refused.status().message();
}

}  // namespace
}  // namespace ray::rllib
