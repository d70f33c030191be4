#pragma once
// The plugin boundary: plain C structs and functions, bytes in and out, versioned.
// A plugin never links the runtime. The runtime loads it, checks
// ray_plugin_abi_version() first, then hands it a RayRuntimeApi table through
// ray_plugin_attach(). Exceptions never cross this boundary.

#include <stddef.h>
#include <stdint.h>

#define RAY_PLUGIN_ABI_VERSION 4u  // 3: get_async; 4: call_id, complete (async methods)
#define RAY_OBJECT_ID_SIZE 20

extern "C" {

// An object handed from the runtime to a plugin. Valid until released.
typedef struct RayObject {
  const char* data;
  size_t size;
  int32_t kind;  // RAY_OBJECT_*
  void* handle;  // runtime-owned
} RayObject;

enum {
  RAY_OBJECT_VALUE = 0,    // data: msgpack of the value
  RAY_OBJECT_ERROR = 1,    // data: msgpack ErrorInfo (see api.h)
  RAY_OBJECT_PENDING = 2,  // not ready before the timeout
};

typedef struct RayArg {
  const char* data;
  size_t size;
  // Valid during the call (may be null): retain() it to keep the bytes afterwards.
  void* handle;
} RayArg;

// What a plugin function produced. `data` is freed with `free_fn`.
typedef struct RayResult {
  char* data;
  size_t size;
  int32_t kind;  // RAY_OBJECT_VALUE or RAY_OBJECT_ERROR; RAY_OBJECT_PENDING: answered
                 // later with complete() (no data)
  void (*free_fn)(char*);
  void* instance;  // actor factories: the new instance
} RayResult;

// Entry points of the runtime, given to a plugin. Functions return 0 on success;
// on failure a non-zero status code and last_error() describes it.
typedef struct RayRuntimeApi {
  uint32_t abi_version;
  void* ctx;
  // Submits a task described by msgpack TaskRequest; writes num_returns ids.
  int (*submit)(void* ctx, const char* req, size_t len, char* ids_out, size_t ids_cap);
  int (*put)(void* ctx, const char* data, size_t len, char* id_out);
  // timeout_ms < 0 waits forever. Objects not ready in time come back PENDING.
  int (*get)(void* ctx, const char* ids, size_t n, int64_t timeout_ms, RayObject* out);
  void (*release)(void* ctx, RayObject* objects, size_t n);
  // ready_out[i] = 1 for the objects found ready (at least num unless timed out).
  int (*wait)(void* ctx, const char* ids, size_t n, size_t num, int64_t timeout_ms,
              uint8_t* ready_out);
  // Rarer operations by name (named actors, cluster state): msgpack in, msgpack out.
  int (*call)(void* ctx, const char* op, const char* req, size_t len, RayObject* reply);
  const char* (*last_error)(void* ctx);
  // Reference counting (either may be null): every ObjectRef (and ActorHandle, as a
  // ref to its actor's creation result) alive in the process counts +1 for its id
  // (RAY_OBJECT_ID_SIZE bytes). ref_escaped: the id was serialized (into a value, a
  // task's arguments or results); the runtime makes the thing it is sent in hold it.
  // An object is freed once no process and nothing sent holds it.
  void (*ref_delta)(void* ctx, const char* id, int32_t delta);
  void (*ref_escaped)(void* ctx, const char* id);
  // put() of the concatenation of `parts`, copied once (may be null).
  int (*put_parts)(void* ctx, const RayArg* parts, size_t n, char* id_out);
  // A handle of its own to an argument's bytes (RayArg::handle), freed with
  // release() as a RayObject's handle (may be null).
  void* (*retain)(void* ctx, void* handle);
  // Since ABI 3. Calls done(user, object) once, when the object with id `id`
  // (RAY_OBJECT_ID_SIZE bytes) is ready: a VALUE or an ERROR, which `done` release()s.
  // It runs on the runtime's callback thread, one callback at a time, without any lock
  // of the runtime held (it may call this table); callbacks still waiting when the
  // runtime shuts down run then with an ERROR. Returns non-zero if it cannot.
  int (*get_async)(void* ctx, const char* id, void (*done)(void* user, RayObject* object),
                   void* user);
  // Since ABI 4: methods that answer later (async actor methods, ray/async.h). call_id:
  // the call the calling thread runs now (an invoke of the runtime's), 0 if none.
  // complete: the result of a call whose invoke returned RAY_OBJECT_PENDING; the
  // runtime answers the call with it and frees it. Once per such call, from any thread.
  uint64_t (*call_id)(void* ctx);
  int (*complete)(void* ctx, uint64_t call, RayResult result);
} RayRuntimeApi;



// Symbols every plugin exports (defined by RAY_MAIN/RAY_REMOTE via api.h).
typedef uint32_t (*RayPluginAbiVersionFn)(void);
typedef void (*RayPluginAttachFn)(const RayRuntimeApi* api);
// Lists registered names as msgpack [[name, kind], ...]; kind 0 function,
// 1 actor factory, 2 actor method.
typedef RayResult (*RayPluginDescribeFn)(void);
typedef RayResult (*RayPluginInvokeFn)(const char* name, size_t name_len, void* instance,
                                       const RayArg* args, size_t nargs);
typedef void (*RayPluginDestroyFn)(const char* factory, size_t len, void* instance);
typedef int (*RayPluginMainFn)(int argc, char** argv);

}  // extern "C"
