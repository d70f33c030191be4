#pragma once
// The runtime a plugin is attached to. `ray run`, `ray submit` and workers load the
// plugin, check ray_plugin_abi_version() and hand it their RayRuntimeApi table
// through ray_plugin_attach(); everything else in the SDK reaches the runtime through
// internal::Api(). Without a runtime (a plugin's code run outside ray) every call
// that needs one throws RayException saying so; reference counting and profiling
// quietly do nothing. Api() is set once, before any task or RAY_MAIN runs.

#include <cstdint>
#include <string>

#include "ray/abi.h"
#include "ray/errors.h"
#include "ray/wire.h"

#define RAY_EXPORT extern "C" __attribute__((visibility("default"), used))

namespace ray::internal {

inline const RayRuntimeApi*& Api() {
  static const RayRuntimeApi* api = nullptr;
  return api;
}

inline const RayRuntimeApi& CheckedApi() {
  if (!Api()) throw RayException(
        "ray runtime is not attached: run this plugin with `ray run`, or call ray::Init() first");
  return *Api();
}

// Reference counting hooks for ObjectRef (no-ops without a runtime that counts).
inline void RefDelta(const std::string& id, int32_t delta) {
  const RayRuntimeApi* api = Api();
  if (api && api->ref_delta && id.size() == RAY_OBJECT_ID_SIZE) api->ref_delta(api->ctx, id.data(), delta);
}
inline void RefEscaped(const std::string& id) {
  const RayRuntimeApi* api = Api();
  if (api && api->ref_escaped && id.size() == RAY_OBJECT_ID_SIZE) api->ref_escaped(api->ctx, id.data());
}

[[noreturn]] inline void ThrowRuntimeError(const char* what) {
  throw RayException(std::string(what) + ": " + CheckedApi().last_error(CheckedApi().ctx));
}

// Releases a runtime object exactly once.
struct Released {
  explicit Released(RayObject o) : object(o) {}
  Released(const Released&) = delete;
  Released& operator=(const Released&) = delete;
  ~Released() {
    if (const RayRuntimeApi* api = Api()) api->release(api->ctx, &object, 1);
  }
  RayObject object;
};

// The runtime's answer to the named operation `op` (RayRuntimeApi::call), as a T.
template <typename T>
T Call(const char* op, const std::string& req = "") {
  const auto& api = CheckedApi();
  RayObject reply{};
  if (api.call(api.ctx, op, req.data(), req.size(), &reply) != 0) {
    ThrowRuntimeError((std::string("cannot call ") + op).c_str());
  }
  Released hold{reply};
  return Unpack<T>(reply.data, reply.size);
}

}  // namespace ray::internal

RAY_EXPORT inline uint32_t ray_plugin_abi_version() { return RAY_PLUGIN_ABI_VERSION; }

RAY_EXPORT inline void ray_plugin_attach(const RayRuntimeApi* api) {
  ray::internal::Api() = api;
}
