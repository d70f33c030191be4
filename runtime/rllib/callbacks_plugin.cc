#include "runtime/rllib/callbacks_plugin.h"

#include <dlfcn.h>

#include <filesystem>

namespace ray::rllib {

Result<std::unique_ptr<CallbacksPlugin>> CallbacksPlugin::Load(const std::string& path,
                                                               const nlohmann::json& config,
                                                               int worker_index) {
  const std::string where = "callbacks plugin " + path;
  std::error_code ec;
  std::string file = std::filesystem::canonical(path, ec).string();
  if (ec) return Status::NotFound(where + ": " + ec.message());
  // Kept loaded for the life of the process (a no-op when loaded already).
  void* lib = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) return Status::InvalidArgument(where + ": " + ::dlerror());
  auto get_api = reinterpret_cast<RayRllibCallbacksApiFn>(::dlsym(lib, "ray_rllib_callbacks_api"));
  if (!get_api) {
    return Status::InvalidArgument(where + ": not a callbacks plugin (it has no ray_rllib_callbacks_api; "
                                           "export one with RAY_RLLIB_CALLBACKS from <ray/rllib/callbacks.h>)");
  }
  const RayRllibCallbacksApi* api = get_api();
  if (!api || api->abi_version != RAY_RLLIB_CALLBACKS_ABI_VERSION) {
    return Status::FailedPrecondition(
        where + ": built for callbacks ABI version " + (api ? std::to_string(api->abi_version) : "?") +
        ", but this ray runs version " + std::to_string(RAY_RLLIB_CALLBACKS_ABI_VERSION) +
        "; rebuild it against this ray's <ray/rllib/callbacks.h>");
  }
  char* error = nullptr;
  void* self = api->create(config.dump().c_str(), worker_index, &error);
  if (!self) {
    std::string message = error ? error : "create returned nothing";
    if (error) api->free_string(error);
    return Status::InvalidArgument(where + ": create: " + message);
  }
  return std::unique_ptr<CallbacksPlugin>(new CallbacksPlugin(api, self, path));
}

CallbacksPlugin::~CallbacksPlugin() { api_->destroy(self_); }

Status CallbacksPlugin::Check(char* error, const char* callback) const {
  if (!error) return Status::Ok();
  std::string message = Take(error);
  return Status::InvalidArgument("callbacks plugin " + path_ + ": " + callback + ": " + message);
}

std::string CallbacksPlugin::Take(char* s) const {
  if (!s) return "";
  std::string out = s;
  api_->free_string(s);
  return out;
}

Status CallbacksPlugin::OnEpisodeStart(const RayRllibEpisode& e) {
  return Check(api_->on_episode_start(self_, &e), "on_episode_start");
}

Status CallbacksPlugin::OnEpisodeStep(const RayRllibEpisode& e) {
  return Check(api_->on_episode_step(self_, &e), "on_episode_step");
}

Result<std::map<std::string, double>> CallbacksPlugin::OnEpisodeEnd(const RayRllibEpisode& e) {
  char* metrics = nullptr;
  RAY_RETURN_IF_ERROR(Check(api_->on_episode_end(self_, &e, &metrics), "on_episode_end"));
  std::string text = Take(metrics);
  std::map<std::string, double> out;
  if (text.empty()) return out;
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) {
    return Status::InvalidArgument("callbacks plugin " + path_ + ": on_episode_end: custom metrics are not a JSON object");
  }
  for (const auto& [name, value] : j.items()) {
    if (!value.is_number()) {
      return Status::InvalidArgument("callbacks plugin " + path_ + ": custom metric '" + name +
                                     "' is not a number: " + value.dump());
    }
    out[name] = value.get<double>();
  }
  return out;
}

Status CallbacksPlugin::OnPostprocessTraj(const RayRllibEpisode& episode, RayRllibTrajectory* batch) {
  return Check(api_->on_postprocess_traj(self_, &episode, batch), "on_postprocess_traj");
}

Status CallbacksPlugin::OnSampleEnd(const RayRllibSamples& samples) {
  return Check(api_->on_sample_end(self_, &samples), "on_sample_end");
}

Result<nlohmann::json> CallbacksPlugin::OnTrainResult(const nlohmann::json& result) {
  char* out = nullptr;
  RAY_RETURN_IF_ERROR(Check(api_->on_train_result(self_, result.dump().c_str(), &out), "on_train_result"));
  std::string text = Take(out);
  if (text.empty()) return result;
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) {
    return Status::InvalidArgument("callbacks plugin " + path_ + ": on_train_result: the result is not a JSON object");
  }
  return j;
}

}  // namespace ray::rllib
