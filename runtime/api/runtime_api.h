#pragma once
// Binds a CoreClient to the C function table a plugin calls (RayRuntimeApi). One
// binding per loaded plugin: submissions carry that plugin's content hash, so the
// workers that run them load the same library.

#include <memory>
#include <string>

#include "ray/abi.h"
#include "runtime/api/core_client.h"

namespace ray::core {

class RuntimeBinding {
 public:
  RuntimeBinding(CoreClient* client, std::string plugin_hash);
  const RayRuntimeApi* api() const { return &api_; }

 private:
  static int Submit(void* ctx, const char* req, size_t len, char* ids_out, size_t ids_cap);
  static int Put(void* ctx, const char* data, size_t len, char* id_out);
  static int Get(void* ctx, const char* ids, size_t n, int64_t timeout_ms, RayObject* out);
  static void Release(void* ctx, RayObject* objects, size_t n);
  static int Wait(void* ctx, const char* ids, size_t n, size_t num, int64_t timeout_ms,
                  uint8_t* ready_out);
  static int Call(void* ctx, const char* op, const char* req, size_t len, RayObject* reply);
  static const char* LastError(void* ctx);
  int Fail(const Status& st);

  CoreClient* client_;
  std::string plugin_hash_;
  std::string last_error_;
  RayRuntimeApi api_;
};

}  // namespace ray::core
