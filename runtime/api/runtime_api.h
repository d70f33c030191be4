#pragma once
// Binds a CoreClient to the C function table a plugin calls (RayRuntimeApi). One
// binding per loaded plugin: submissions carry that plugin's content hash, so the
// workers that run them load the same library. Thread-safe, as the client is
// (last_error is the calling thread's). It owns the plugin's callback thread
// (async_gets.h), stopped when the binding goes: keep the plugin loaded until then.

#include <functional>
#include <memory>
#include <string>

#include "ray/abi.h"
#include "runtime/api/async_gets.h"
#include "runtime/api/core_client.h"

namespace ray::core {

class RuntimeBinding {
 public:
  RuntimeBinding(CoreClient* client, std::string plugin_hash);
  const RayRuntimeApi* api() const { return &api_; }
  // Ends the plugin's callback thread (async_gets.h): callbacks waiting run now with an
  // error. Drivers call it when the job's main returns, before they disconnect.
  void StopCallbacks() { async_gets_.Stop(); }

  // Async methods (RayRuntimeApi::call_id, complete): the call the calling thread
  // runs (0: none), set around an invoke; and what takes the result of a call whose
  // invoke answered RAY_OBJECT_PENDING (any thread, once per call; it frees it).
  // Without one, complete() fails.
  using Completer = std::function<void(uint64_t call, RayResult result)>;
  static void SetCurrentCall(uint64_t call);
  void SetCompleter(Completer completer) { completer_ = std::move(completer); }

 private:
  static int Submit(void* ctx, const char* req, size_t len, char* ids_out, size_t ids_cap);
  static int Put(void* ctx, const char* data, size_t len, char* id_out);
  static int Get(void* ctx, const char* ids, size_t n, int64_t timeout_ms, RayObject* out);
  static void Release(void* ctx, RayObject* objects, size_t n);
  static int Wait(void* ctx, const char* ids, size_t n, size_t num, int64_t timeout_ms,
                  uint8_t* ready_out);
  static int Call(void* ctx, const char* op, const char* req, size_t len, RayObject* reply);
  static const char* LastError(void* ctx);
  static int GetAsync(void* ctx, const char* id, void (*done)(void* user, RayObject* object),
                      void* user);
  static uint64_t CallId(void* ctx);
  static int Complete(void* ctx, uint64_t call, RayResult result);
  int Fail(const Status& st);

  CoreClient* client_;
  std::string plugin_hash_;
  RayRuntimeApi api_;
  Completer completer_;  // set before the plugin's first invoke
  AsyncGets async_gets_{client_};
};

}  // namespace ray::core
