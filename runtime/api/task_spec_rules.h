#pragma once
// A submission's task spec, before it leaves the process: the plugin's request (which
// the spec embeds) checked, and completed with what it inherits from the process that
// submits it. Pure: no connection, no ids made here (the submitter gives the spec its
// ids and plugin, ships its runtime environment, and puts its large arguments).

#include <string>

#include "runtime/base/status.h"
#include "runtime/serialization/protocol.h"

namespace ray::core {

// The most threads a concurrent actor runs calls on (max_concurrency).
inline constexpr int32_t kMaxActorConcurrency = 1000;

// What a process's submissions inherit unless they set their own.
struct Inherited {
  std::string runtime_env;       // canonical JSON; "": none
  std::string capture_group;     // the placement group that captures them
                                 // (TaskRequest::placement_group_capture_child_tasks; "": none)
  bool actors_detached = false;  // the job's default_actor_lifetime is DETACHED
};

// Checks `spec` (a task, actor creation or actor call as the plugin asked for it) and
// completes it: the job's actor lifetime, the group that captures it, its resources
// renamed to its bundle's (scheduler/bundle_resources.h). An actor call runs in its
// actor's runtime environment, a task or actor without its own in the inherited one;
// one with its own (HasOwnRuntimeEnv) is left for the caller to ship and merge. The
// error says what is wrong (and names the task, where it is one task's setting).
Status CompleteSpec(protocol::TaskSpec& spec, const Inherited& inherited);

// Whether `spec`, as the plugin asked for it, sets its own runtime environment (an
// actor call never does: it runs in its actor's).
bool HasOwnRuntimeEnv(const protocol::TaskSpec& spec);

// A task or actor in a placement group: checks its group id and bundle index and
// renames its resources to the bundle's.
Status InPlacementGroup(protocol::TaskSpec& spec);

}  // namespace ray::core
