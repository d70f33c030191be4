#pragma once
// A Tune logger plugin: one more place every trial's results go, beside the
// built-in ones, when an experiment says
//
//   loggers: [json, csv, tensorboard, /path/to/my_logger.so]
//
// (`tune run -f`, `rllib train -f` YAML, or `--loggers`). The driver of the
// experiment makes one logger per trial, in the trial's directory, and calls it
// with each result as the driver completed it (training_iteration, trial_id,
// config, ...), from one thread at a time.
//
// The boundary is C and JSON, versioned: the library exports
// `ray_tune_logger_api()`, whose `abi_version` is checked first. A call that fails
// returns a message (freed with free_string) and fails the trial's logging with it;
// exceptions never cross the boundary.
//
// In C++, derive from ray::tune::LoggerPlugin and export it with
// RAY_TUNE_LOGGER(MyLogger); see plugins/examples/tsv_logger.cc.

#include <stdint.h>

#define RAY_TUNE_LOGGER_ABI_VERSION 1

extern "C" {
struct RayTuneLoggerApi {
  uint32_t abi_version;
  // A logger writing under `trial_dir` for a trial with `config_json`; null on
  // failure, with *error set.
  void* (*create)(const char* trial_dir, const char* config_json, char** error);
  // Null on success, else an error message.
  char* (*on_result)(void* self, const char* result_json);
  // The trial's config changed (PBT); null on success, else an error message.
  char* (*on_config)(void* self, const char* config_json);
  void (*free_string)(char* s);
  void (*destroy)(void* self);
};
}

#ifdef __cplusplus
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include <nlohmann/json.hpp>

#include "ray/plugin_strings.h"

namespace ray::tune {

class LoggerPlugin {
 public:
  using Json = nlohmann::json;
  virtual ~LoggerPlugin() = default;
  virtual void OnResult(const Json& result) = 0;
  virtual void OnConfig(const Json& /*config*/) {}
};

namespace logger_detail {
using ::ray::plugin_strings::Dup;
using ::ray::plugin_strings::Guard;
}  // namespace logger_detail
}  // namespace ray::tune

// Exports `Class` (constructible from (const std::string& trial_dir, const
// nlohmann::json& config)) as this library's Tune logger.
#define RAY_TUNE_LOGGER(Class)                                                            \
  extern "C" __attribute__((visibility("default"), used)) const RayTuneLoggerApi*         \
  ray_tune_logger_api() {                                                                 \
    namespace d = ::ray::tune::logger_detail;                                             \
    static const RayTuneLoggerApi api = {                                                 \
        RAY_TUNE_LOGGER_ABI_VERSION,                                                      \
        [](const char* dir, const char* config, char** error) -> void* {                  \
          Class* made = nullptr;                                                          \
          *error = d::Guard(                                                              \
              [&] { made = new Class(std::string(dir), nlohmann::json::parse(config)); }); \
          return made;                                                                    \
        },                                                                                \
        [](void* self, const char* result) -> char* {                                     \
          return d::Guard(                                                                \
              [&] { static_cast<Class*>(self)->OnResult(nlohmann::json::parse(result)); });  \
        },                                                                                \
        [](void* self, const char* config) -> char* {                                     \
          return d::Guard(                                                                \
              [&] { static_cast<Class*>(self)->OnConfig(nlohmann::json::parse(config)); });  \
        },                                                                                \
        [](char* s) { std::free(s); },                                                    \
        [](void* self) { delete static_cast<Class*>(self); }};                            \
    return &api;                                                                          \
  }
#endif
