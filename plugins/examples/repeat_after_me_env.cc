// A memory task in an env plugin (RLlib's RepeatAfterMeEnv): the agent must say the
// token it saw `repeat_delay` steps ago. The current observation says nothing about
// that token, so a policy without memory scores 0 on average; one with an LSTM
// (model.use_lstm) can reach 100.
//
//   rllib train --run PPO --env RepeatAfterMe-v0
//               --env-plugin build/plugins/examples/repeat_after_me_env.so
//               --config '{"model": {"use_lstm": true}}'
//
//   observation  Discrete(2): the new token (0 or 1, uniform); the model sees it
//                one-hot, as RLlib's preprocessor gives it
//   action       Discrete(2): the token seen repeat_delay steps before this one
//                (the first repeat_delay answers are compared with 0)
//   reward       +1 if the action matches, -1 if not
//   registered   "RepeatAfterMe-v0", 100 steps per episode
//   env_config   "repeat_delay" (integer >= 1, default 1)

#include <ray/rllib/env_plugin.h>

#include <deque>
#include <optional>
#include <stdexcept>

namespace {

using namespace ray::rllib;

class RepeatAfterMe : public Env {
 public:
  explicit RepeatAfterMe(int64_t delay) : delay_(delay) {}

  Observation Reset(std::optional<uint64_t> seed) override {
    SeedRng(seed);
    history_.assign(delay_, 0);
    return NextToken();
  }
  StepResult Step(const Action& action) override {
    const double reward = action.index == history_.front() ? 1.0 : -1.0;
    history_.pop_front();
    return {NextToken(), reward, false, false};
  }
  const Space& observation_space() const override { return observation_space_; }
  const Space& action_space() const override { return action_space_; }

 private:
  Observation NextToken() {
    const int64_t token = rng().Integer(2);
    history_.push_back(token);
    return {static_cast<float>(token)};
  }

  int64_t delay_;
  std::deque<int64_t> history_;  // the last delay_ + 1 tokens, oldest first
  Space observation_space_ = Discrete(2);
  Space action_space_ = Discrete(2);
};

std::unique_ptr<Env> MakeRepeatAfterMe(const EnvContext& context) {
  const int64_t delay = context.GetInt("repeat_delay", 1);
  if (delay < 1) throw std::invalid_argument("env_config[\"repeat_delay\"] must be >= 1");
  return std::make_unique<RepeatAfterMe>(delay);
}

}  // namespace

RAY_ENV("RepeatAfterMe-v0", MakeRepeatAfterMe, 100, std::nullopt);
