// Structured observations in an env plugin: a corridor whose rewarding end is shown by
// a sign. The observation is a Dict (or a Tuple) of the position and the sign, which
// the runtime flattens for the model as RLlib's preprocessors do: the Box as it is,
// the Discrete sign one-hot. A policy that ignores the sign gets about -0.05 on average;
// one that reads it gets 0.97.
//
//   rllib train --run PPO --env SignedCorridor-v0
//               --env-plugin build/plugins/examples/signed_corridor_env.so
//
//   observation  SignedCorridor-v0:      Dict(position: Box(1,), sign: Discrete(2)),
//                                        laid out [position, sign] (keys in order)
//                SignedCorridorTuple-v0: Tuple(Discrete(2), Box(1,)), [sign, position]
//                position is the cell over the length, in [0, 1]; sign 0 says the
//                left end pays, 1 the right end
//   action       Discrete(2): 0 steps left, 1 steps right
//   reward       +1 on reaching the end the sign shows, -1 on reaching the other
//                (either ends the episode), -0.01 for any other step
//   start        the middle cell; the sign uniform at random
//   registered   both ids, 50 steps per episode, reward threshold 0.9
//   env_config   "length" (even integer >= 2, default 8)

#include <ray/rllib/env_plugin.h>

#include <optional>
#include <stdexcept>

namespace {

using namespace ray::rllib;

class SignedCorridor : public Env {
 public:
  SignedCorridor(int64_t length, bool tuple)
      : length_(length),
        tuple_(tuple),
        observation_space_(tuple ? Space(Tuple({Discrete(2), Box({0.0f}, {1.0f})}))
                                 : Space(Dict({{"sign", Discrete(2)}, {"position", Box({0.0f}, {1.0f})}}))) {}

  Observation Reset(std::optional<uint64_t> seed) override {
    SeedRng(seed);
    cell_ = length_ / 2;
    sign_ = rng().Integer(2);
    return Observe();
  }
  StepResult Step(const Action& action) override {
    cell_ += action.index == 1 ? 1 : -1;
    const bool at_end = cell_ == 0 || cell_ == length_;
    const bool paid_end = (sign_ == 1) == (cell_ == length_);
    const double reward = at_end ? (paid_end ? 1.0 : -1.0) : -0.01;
    return {Observe(), reward, at_end, false};
  }
  const Space& observation_space() const override { return observation_space_; }
  const Space& action_space() const override { return action_space_; }

 private:
  Observation Observe() const {
    const float position = static_cast<float>(cell_) / static_cast<float>(length_);
    const float sign = static_cast<float>(sign_);
    return tuple_ ? Observation{sign, position} : Observation{position, sign};
  }

  int64_t length_;
  bool tuple_;
  int64_t cell_ = 0;
  int64_t sign_ = 0;
  Space observation_space_;
  Space action_space_ = Discrete(2);
};

int64_t Length(const EnvContext& context) {
  const int64_t length = context.GetInt("length", 8);
  if (length < 2 || length % 2 != 0) throw std::invalid_argument("env_config[\"length\"] must be an even integer >= 2");
  return length;
}

std::unique_ptr<Env> MakeDict(const EnvContext& c) { return std::make_unique<SignedCorridor>(Length(c), false); }
std::unique_ptr<Env> MakeTuple(const EnvContext& c) { return std::make_unique<SignedCorridor>(Length(c), true); }

}  // namespace

RAY_ENV("SignedCorridor-v0", MakeDict, 50, 0.9);
RAY_ENV("SignedCorridorTuple-v0", MakeTuple, 50, 0.9);
