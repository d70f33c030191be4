#pragma once
// The runtime's side of a callbacks plugin (<ray/rllib/callbacks.h>): loads the
// library, checks its ABI version, makes its callbacks object for one worker, and
// calls it with C structs. Every error names the library and the callback.
// The library stays loaded for the life of the process. One object per worker;
// not thread-safe.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <ray/rllib/callbacks.h>

#include "runtime/base/status.h"

namespace ray::rllib {

class CallbacksPlugin {
 public:
  // NotFound (no file), InvalidArgument (not loadable, not a callbacks plugin, its
  // constructor failed), FailedPrecondition (another ABI version).
  static Result<std::unique_ptr<CallbacksPlugin>> Load(const std::string& path,
                                                       const nlohmann::json& config,
                                                       int worker_index);
  ~CallbacksPlugin();

  Status OnEpisodeStart(const RayRllibEpisode& episode);
  Status OnEpisodeStep(const RayRllibEpisode& episode);
  // The episode's custom metrics.
  Result<std::map<std::string, double>> OnEpisodeEnd(const RayRllibEpisode& episode);
  // `batch`'s advantages and value_targets may be changed by the callback.
  Status OnPostprocessTraj(const RayRllibEpisode& episode, RayRllibTrajectory* batch);
  Status OnSampleEnd(const RayRllibSamples& samples);
  // The result to report.
  Result<nlohmann::json> OnTrainResult(const nlohmann::json& result);

 private:
  CallbacksPlugin(const RayRllibCallbacksApi* api, void* self, std::string path)
      : api_(api), self_(self), path_(std::move(path)) {}
  // Takes (and frees) a returned error message.
  Status Check(char* error, const char* callback) const;
  // Takes (and frees) a returned string.
  std::string Take(char* s) const;

  const RayRllibCallbacksApi* api_;
  void* self_;
  std::string path_;
};

}  // namespace ray::rllib
