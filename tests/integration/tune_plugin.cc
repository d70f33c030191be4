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
