// An env plugin for the config tests: it writes what its factory received to a file,
// so a test can see env_config, worker_index and vector_index arrive in every copy.
//
//   observation  Box([0], [1000]): the steps taken since the last reset
//   action       Discrete(2), ignored
//   reward       env_config "reward" (default 1) every step
//   terminated   after env_config "episode_len" steps (default 10)
//   registered   "Counter-v0", no time limit
//   env_config   "record_dir": if set, the factory writes
//                <record_dir>/w<worker_index>_v<vector_index>.json holding
//                {"config": env_config, "worker_index": .., "vector_index": ..}

#include <ray/rllib/env_plugin.h>

#include <fstream>
#include <stdexcept>
#include <string>

namespace {

using namespace ray::rllib;

class Counter : public Env {
 public:
  Counter(int64_t episode_len, double reward) : episode_len_(episode_len), reward_(reward) {}
  Observation Reset(std::optional<uint64_t> seed) override {
    SeedRng(seed);
    t_ = 0;
    return {0.f};
  }
  StepResult Step(const Action&) override {
    ++t_;
    return {{static_cast<float>(t_)}, reward_, t_ >= episode_len_, false};
  }
  const Space& observation_space() const override { return observation_space_; }
  const Space& action_space() const override { return action_space_; }

 private:
  int64_t episode_len_;
  double reward_;
  int64_t t_ = 0;
  Space observation_space_ = Box({0.0f}, {1000.0f});
  Space action_space_ = Discrete(2);
};

std::unique_ptr<Env> MakeCounter(const EnvContext& context) {
  const std::string dir = context.GetString("record_dir", "");
  if (!dir.empty()) {
    const std::string file = dir + "/w" + std::to_string(context.worker_index()) + "_v" +
                             std::to_string(context.vector_index()) + ".json";
    std::ofstream out(file);
    out << nlohmann::json{{"config", context.config()},
                          {"worker_index", context.worker_index()},
                          {"vector_index", context.vector_index()}}
               .dump();
    if (!out) throw std::invalid_argument("cannot write " + file);
  }
  const int64_t episode_len = context.GetInt("episode_len", 10);
  if (episode_len < 1) throw std::invalid_argument("env_config[\"episode_len\"] must be >= 1");
  return std::make_unique<Counter>(episode_len, context.GetDouble("reward", 1.0));
}

}  // namespace

RAY_ENV("Counter-v0", MakeCounter, std::nullopt, std::nullopt);
