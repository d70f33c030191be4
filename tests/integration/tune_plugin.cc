// Trainables for the `tune run` tests: ones that fail, crash or take their time.

#include <ray/tune.h>

#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

using ray::tune::Json;

// Counts iterations; checkpointable. Its worker dies once at config["crash_at"]
// (a marker file, config["marker"], records that it happened).
class Counter : public ray::tune::Trainable {
 public:
  void Setup(const Json& config) override { config_ = config; }
  Json Step() override {
    ++count_;
    if (count_ == config_.value("crash_at", -1) && !std::ifstream(config_.value("marker", ""))) {
      std::ofstream(config_.value("marker", "")) << "crashed";
      ::_exit(3);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(config_.value("sleep_ms", 0)));
    return {{"count", count_}, {"score", count_ * config_.value("rate", 1.0)},
            {"node_id", ray::GetNodeId()}};
  }
  void Save(const std::string& dir) override { std::ofstream(dir + "/count") << count_; }
  void Restore(const std::string& dir) override { std::ifstream(dir + "/count") >> count_; }

 private:
  Json config_;
  int64_t count_ = 0;
};
RAY_TUNE_TRAINABLE("counter", Counter);

// Throws at its second step.
class Failing : public ray::tune::Trainable {
 public:
  Json Step() override {
    if (++steps_ == 2) throw std::runtime_error("diverged at step 2");
    return {{"loss", 1.0}};
  }

 private:
  int steps_ = 0;
};
RAY_TUNE_TRAINABLE("failing", Failing);

// Starts config["children"] one-CPU actors in Setup (as an RLlib trainer starts its
// rollout workers) and calls each once a step. Reports how many answered, and the
// placement groups the cluster holds now: how many are CREATED and the bundles of
// the one its trial runs in.
class ChildActor {
 public:
  static ChildActor* Create() { return new ChildActor(); }
  int Ping() { return 1; }
};
RAY_REMOTE(ChildActor::Create, &ChildActor::Ping);

class Spawner : public ray::tune::Trainable {
 public:
  void Setup(const Json& config) override {
    for (int i = 0; i < config.value("children", 0); ++i) {
      children_.push_back(ray::Actor(ChildActor::Create).SetResource("CPU", 1).Remote());
    }
  }
  Json Step() override {
    int answered = 0;
    for (auto& c : children_) {
      answered += *ray::Get(c.Task(&ChildActor::Ping).Remote(), std::chrono::seconds(20));
    }
    int created = 0;
    Json bundles = Json::array();
    for (const auto& pg : ray::ListPlacementGroups()) {
      if (pg.state != "CREATED") continue;
      ++created;
      for (const auto& b : pg.bundles) bundles.push_back(b);
    }
    return {{"children_answered", answered}, {"groups_created", created}, {"bundles", bundles}};
  }

 private:
  std::vector<ray::ActorHandle<ChildActor>> children_;
};
RAY_TUNE_TRAINABLE("spawner", Spawner);
