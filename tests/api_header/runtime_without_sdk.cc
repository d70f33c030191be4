// Compiles only if the runtime's wire layer (protocol.h) and the transport and GCS
// headers above it leave the user SDK out: each declaration below takes a name that
// one SDK header declares, and would clash with it.

#include "runtime/gcs/gcs_client.h"
#include "runtime/gcs/gcs_service.h"
#include "runtime/gcs/gcs_store.h"
#include "runtime/gcs/state_views.h"
#include "runtime/serialization/protocol.h"
#include "runtime/transport/transport.h"

namespace ray {
using RayException = int;  // ray/errors.h
using Blob = int;          // ray/values.h
using ObjectRef = int;     // ray/object_ref.h
using TaskCaller = int;    // ray/task.h
using ActorHandle = int;   // ray/actor.h
using Profile = int;       // ray/state.h
namespace internal {
using Registry = int;  // ray/registry.h
int Api;               // ray/context.h
}  // namespace internal
}  // namespace ray
