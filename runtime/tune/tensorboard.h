#pragma once
// TensorBoard's event files, written without TensorFlow.
//
// A file (events.out.tfevents.<seconds>.<host>) is a sequence of records:
//
//   uint64 length | uint32 masked_crc32c(length) | data | uint32 masked_crc32c(data)
//
// (little-endian), each `data` an `Event` protocol buffer. The first event names
// the format ("brain.Event:2"); each result is then one event holding a `Summary`
// of scalars. Only the fields used here are encoded:
//
//   Event   { double wall_time = 1; int64 step = 2; string file_version = 3;
//             Summary summary = 5; }
//   Summary { repeated Value value = 1; }
//   Value   { string tag = 1; float simple_value = 2; }

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/base/status.h"

namespace ray::tune {

using Scalars = std::vector<std::pair<std::string, float>>;

// CRC-32C (Castagnoli), and TensorFlow's masking of it for record framing.
uint32_t Crc32c(std::string_view data);
uint32_t MaskedCrc32c(std::string_view data);

std::string FrameRecord(std::string_view data);
std::string VersionEvent(double wall_time);
std::string ScalarsEvent(double wall_time, int64_t step, const Scalars& scalars);

// A Tune result as Ray's TensorBoard logger writes it: every number (bools aside),
// nested dicts flattened, tagged "ray/tune/<path>" ("ray/tune/info/learner/kl"),
// without config, pid, timestamp and time_total_s.
Scalars ResultScalars(const nlohmann::json& result);
// Its step: timesteps_total when set and non-zero, else training_iteration.
int64_t ResultStep(const nlohmann::json& result);

class EventFileWriter {
 public:
  // A new event file in `dir` (never an existing one), its version event written.
  static Result<std::unique_ptr<EventFileWriter>> Create(const std::string& dir);
  ~EventFileWriter();
  EventFileWriter(const EventFileWriter&) = delete;
  EventFileWriter& operator=(const EventFileWriter&) = delete;

  // Appends one event and flushes it.
  Status Write(std::string_view event);
  const std::string& path() const { return path_; }

 private:
  EventFileWriter(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  std::string path_;
  int fd_;
};

}  // namespace ray::tune
