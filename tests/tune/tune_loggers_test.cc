// A trial's loggers: result.json, progress.csv, TensorBoard event files read back
// by a reader written here from the format's description (record framing with
// masked CRC-32C, Event and Summary protocol buffers), and logger plugins.

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "runtime/base/util.h"
#include "runtime/tune/result_logger.h"
#include "runtime/tune/tensorboard.h"
#include "runtime/tune/trial_logger.h"

namespace ray::tune {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// --- a reader of event files, independent of the writer ---------------------

struct Event {
  double wall_time = 0;
  int64_t step = 0;
  std::string file_version;
  std::map<std::string, float> scalars;
};

class Cursor {
 public:
  explicit Cursor(std::string_view data) : data_(data) {}
  bool done() const { return pos_ >= data_.size(); }
  uint64_t Fixed(int bytes) {
    if (pos_ + bytes > data_.size()) throw std::runtime_error("truncated fixed field");
    uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= uint64_t(uint8_t(data_[pos_ + i])) << (8 * i);
    pos_ += bytes;
    return v;
  }
  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (done()) throw std::runtime_error("truncated varint");
      uint8_t b = data_[pos_++];
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    throw std::runtime_error("varint too long");
  }
  std::string_view Bytes() {
    uint64_t n = Varint();
    if (pos_ + n > data_.size()) throw std::runtime_error("truncated bytes");
    std::string_view out = data_.substr(pos_, n);
    pos_ += n;
    return out;
  }
  std::string_view Take(size_t n) {
    if (pos_ + n > data_.size()) throw std::runtime_error("truncated record");
    std::string_view out = data_.substr(pos_, n);
    pos_ += n;
    return out;
  }

 private:
  std::string_view data_;
  size_t pos_ = 0;
};

// Bitwise CRC-32C, to check the writer's table-driven one.
uint32_t SlowCrc32c(std::string_view data) {
  uint32_t crc = 0xffffffffu;
  for (unsigned char b : data) {
    crc ^= b;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1)));
  }
  return ~crc;
}
uint32_t Mask(uint32_t crc) { return ((crc >> 15) | (crc << 17)) + 0xa282ead8u; }

std::map<std::string, float> ParseSummary(std::string_view bytes) {
  std::map<std::string, float> out;
  Cursor c(bytes);
  while (!c.done()) {
    uint64_t key = c.Varint();
    if (key != ((1 << 3) | 2)) throw std::runtime_error("unexpected Summary field");
    Cursor v(c.Bytes());
    std::string tag;
    float value = 0;
    while (!v.done()) {
      uint64_t k = v.Varint();
      if (k == ((1 << 3) | 2)) {
        tag = std::string(v.Bytes());
      } else if (k == ((2 << 3) | 5)) {
        uint32_t bits = static_cast<uint32_t>(v.Fixed(4));
        std::memcpy(&value, &bits, 4);
      } else {
        throw std::runtime_error("unexpected Value field");
      }
    }
    out[tag] = value;
  }
  return out;
}

Event ParseEvent(std::string_view bytes) {
  Event e;
  Cursor c(bytes);
  while (!c.done()) {
    uint64_t key = c.Varint();
    switch (key) {
      case (1 << 3) | 1: {
        uint64_t bits = c.Fixed(8);
        std::memcpy(&e.wall_time, &bits, 8);
        break;
      }
      case (2 << 3) | 0: e.step = static_cast<int64_t>(c.Varint()); break;
      case (3 << 3) | 2: e.file_version = std::string(c.Bytes()); break;
      case (5 << 3) | 2: e.scalars = ParseSummary(c.Bytes()); break;
      default: throw std::runtime_error("unexpected Event field " + std::to_string(key));
    }
  }
  return e;
}

std::vector<Event> ReadEvents(const std::string& path) {
  std::string data = ReadFile(path).value();
  Cursor c(data);
  std::vector<Event> out;
  while (!c.done()) {
    std::string_view length = c.Take(8);
    EXPECT_EQ(c.Fixed(4), Mask(SlowCrc32c(length))) << "length crc, record " << out.size();
    uint64_t n = Cursor(length).Fixed(8);
    std::string_view body = c.Take(n);
    EXPECT_EQ(c.Fixed(4), Mask(SlowCrc32c(body))) << "data crc, record " << out.size();
    out.push_back(ParseEvent(body));
  }
  return out;
}

std::vector<std::string> EventFiles(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("events.out.tfevents.", 0) == 0) out.push_back(e.path());
  }
  return out;
}

// --- tests --------------------------------------------------------------------

class LoggersTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("tune_loggers_" + ToHex(RandomBytes(6)));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
};

TEST(Crc32cTest, MatchesTheCastagnoliCheckValue) {
  EXPECT_EQ(Crc32c("123456789"), 0xE3069283u);
  EXPECT_EQ(Crc32c(""), 0u);
  std::string bytes;
  for (int i = 0; i < 1000; ++i) bytes.push_back(static_cast<char>(i * 37));
  EXPECT_EQ(Crc32c(bytes), SlowCrc32c(bytes));
}

TEST(TensorBoardScalarsTest, FollowRayTagsAndSteps) {
  json result = {{"episode_reward_mean", 21.5}, {"training_iteration", 3},
                 {"timesteps_total", 4000}, {"done", false}, {"trial_id", "abc"},
                 {"pid", 77}, {"timestamp", 1700000000}, {"time_total_s", 9.0},
                 {"config", {{"lr", 0.1}}},
                 {"info", {{"learner", {{"default_policy", {{"kl", 0.02}}}}}}}};
  Scalars scalars = ResultScalars(result);
  std::map<std::string, float> got(scalars.begin(), scalars.end());
  std::map<std::string, float> want = {{"ray/tune/episode_reward_mean", 21.5f},
                                       {"ray/tune/training_iteration", 3.f},
                                       {"ray/tune/timesteps_total", 4000.f},
                                       {"ray/tune/info/learner/default_policy/kl", 0.02f}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(ResultStep(result), 4000);
  EXPECT_EQ(ResultStep({{"training_iteration", 3}, {"timesteps_total", 0}}), 3);
  EXPECT_EQ(ResultStep({{"training_iteration", 5}}), 5);
}

TEST_F(LoggersTest, EveryResultReachesJsonCsvAndTensorBoard) {
  auto logger = ResultLogger::Create(dir_, {{"lr", 0.5}}, "exp", "t1").value();
  std::vector<json> logged;
  for (int i = 1; i <= 3; ++i) {
    json r = {{"training_iteration", i}, {"timesteps_total", 100 * i},
              {"episode_reward_mean", 10.0 * i},
              {"info", {{"learner", {{"default_policy", {{"kl", 0.01 * i}}}}}}}};
    logged.push_back(logger->Log(r).value());
  }
  logger.reset();

  std::istringstream lines(ReadFile(dir_ + "/result.json").value());
  std::vector<json> read;
  for (std::string line; std::getline(lines, line);) read.push_back(json::parse(line));
  EXPECT_EQ(read, logged);

  std::string csv = ReadFile(dir_ + "/progress.csv").value();
  std::string header = csv.substr(0, csv.find('\n'));
  EXPECT_NE(header.find("info/learner/default_policy/kl"), std::string::npos) << header;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4) << csv;

  auto files = EventFiles(dir_);
  ASSERT_EQ(files.size(), 1u);
  auto events = ReadEvents(files[0]);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].file_version, "brain.Event:2");
  for (int i = 1; i <= 3; ++i) {
    const Event& e = events[i];
    const json& r = read[i - 1];
    EXPECT_EQ(e.step, r["timesteps_total"].get<int64_t>());
    EXPECT_NEAR(e.wall_time, r["timestamp"].get<double>(), 5);
    EXPECT_FLOAT_EQ(e.scalars.at("ray/tune/episode_reward_mean"), r["episode_reward_mean"].get<float>());
    EXPECT_FLOAT_EQ(e.scalars.at("ray/tune/training_iteration"), static_cast<float>(i));
    EXPECT_FLOAT_EQ(e.scalars.at("ray/tune/info/learner/default_policy/kl"),
                    r["info"]["learner"]["default_policy"]["kl"].get<float>());
    EXPECT_EQ(e.scalars.count("ray/tune/timestamp"), 0u);
    EXPECT_EQ(e.scalars.count("ray/tune/config/lr"), 0u);
  }
}

TEST_F(LoggersTest, AReopenedTrialKeepsItsCsvColumnsAndStartsANewEventFile) {
  {
    auto first = ResultLogger::Create(dir_, json::object(), "exp", "t1").value();
    ASSERT_TRUE(first->Log({{"a", 1}, {"training_iteration", 1}}).ok());
  }
  auto second = ResultLogger::Create(dir_, json::object(), "exp", "t1").value();
  ASSERT_TRUE(second->Log({{"b", 2}, {"a", 3}, {"training_iteration", 2}}).ok());
  std::string csv = ReadFile(dir_ + "/progress.csv").value();
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 3) << csv;
  EXPECT_EQ(csv.find(",b,"), std::string::npos) << csv;
  EXPECT_EQ(EventFiles(dir_).size(), 2u);
}

TEST_F(LoggersTest, TheLoggersSettingChoosesWhatIsWritten) {
  auto logger = ResultLogger::Create(dir_, json::object(), "exp", "t1", {"JsonLogger"}).value();
  ASSERT_TRUE(logger->Log({{"training_iteration", 1}}).ok());
  EXPECT_TRUE(fs::exists(dir_ + "/result.json"));
  EXPECT_FALSE(fs::exists(dir_ + "/progress.csv"));
  EXPECT_TRUE(EventFiles(dir_).empty());
}

TEST_F(LoggersTest, BadLoggersAreRefusedNamingTheEntry) {
  auto unknown = CheckLoggers({"json", "nope"});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.message().find("'nope'"), std::string::npos) << unknown.message();

  auto no_json = CheckLoggers({"csv", "tensorboard"});
  ASSERT_FALSE(no_json.ok());
  EXPECT_NE(no_json.message().find("json cannot be left out"), std::string::npos);

  auto missing = CheckLoggers({"json", "/nonexistent/logger.so"});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("/nonexistent/logger.so: cannot be loaded"), std::string::npos)
      << missing.message();

  auto not_a_logger = CheckLoggers({"json", TUNE_TRAINABLES_PLUGIN});
  ASSERT_FALSE(not_a_logger.ok());
  EXPECT_NE(not_a_logger.message().find("is not a Tune logger plugin"), std::string::npos)
      << not_a_logger.message();

  EXPECT_FALSE(ResultLogger::Create(dir_, json::object(), "exp", "t1", {"csv"}).ok());
}

TEST_F(LoggersTest, ALoggerPluginSeesEveryResult) {
  auto logger =
      ResultLogger::Create(dir_, json::object(), "exp", "t1", {"json", TSV_LOGGER_PLUGIN}).value();
  ASSERT_TRUE(logger->Log({{"training_iteration", 1}, {"loss", 0.5}}).ok());
  ASSERT_TRUE(logger->Log({{"training_iteration", 2}, {"loss", 0.25}}).ok());
  logger.reset();
  std::string tsv = ReadFile(dir_ + "/progress.tsv").value();
  EXPECT_EQ(tsv.substr(0, tsv.find('\n')), "loss\ttimestamp\ttraining_iteration") << tsv;
  EXPECT_NE(tsv.find("\n0.5\t"), std::string::npos) << tsv;
  EXPECT_NE(tsv.find("\n0.25\t"), std::string::npos) << tsv;

  // The plugin's own failure reaches the caller with the plugin named.
  fs::remove_all(dir_);
  fs::create_directories(dir_);
  fs::create_directories(dir_ + "/progress.tsv");  // a directory: the plugin cannot open it
  auto refused = ResultLogger::Create(dir_, json::object(), "exp", "t1", {"json", TSV_LOGGER_PLUGIN});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("cannot write"), std::string::npos)
      << refused.status().message();
}

TEST(StopCriteriaTest, AnyFieldReachingItsValueStopsNestedOnesByTheirPath) {
  using nlohmann::json;
  const json result = {{"training_iteration", 3},
                       {"episode_reward_mean", 120.0},
                       {"evaluation", {{"episode_reward_mean", 480.0}, {"episodes_this_iter", 100}}}};
  EXPECT_FALSE(ShouldStop({{"training_iteration", 4}, {"episode_reward_mean", 475}}, result));
  EXPECT_TRUE(ShouldStop({{"training_iteration", 3}}, result));
  EXPECT_TRUE(ShouldStop({{"evaluation/episode_reward_mean", 475}}, result));
  EXPECT_FALSE(ShouldStop({{"evaluation/episode_reward_mean", 490}}, result));
  EXPECT_FALSE(ShouldStop({{"evaluation/episode_reward_mean/x", 1}}, result)) << "no deeper field";
  EXPECT_FALSE(ShouldStop({{"evaluation/", 1}}, result));
  EXPECT_FALSE(ShouldStop({{"evaluation", 1}}, result)) << "an object is no value";
  EXPECT_FALSE(ShouldStop({{"missing/episode_reward_mean", 1}}, result));
  EXPECT_TRUE(ShouldStop({{"custom/a", 2}}, {{"custom/a", 2.0}})) << "a top-level key with a slash";
}

}  // namespace
}  // namespace ray::tune
