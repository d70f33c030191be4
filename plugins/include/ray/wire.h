#pragma once
// The SDK's wire types: the msgpack messages a plugin and the runtime exchange
// through the RayRuntimeApi table (ray/abi.h) -- a task submission (TaskRequest), the
// error object a failed task leaves (ErrorInfo), the nodes ray::Nodes() lists
// (NodeInfo) -- and the Pack/Unpack both sides encode them with. The runtime's wire layer includes this header and nothing of the
// user API; the user API includes it. Each struct's MSGPACK_DEFINE_ARRAY order is its
// encoding: reordering fields breaks plugins and runtimes built before.

#include <msgpack.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ray::internal {

// How an error object is stored: msgpack [kind, type, message, task, where].
enum ErrorKind : int {
  kTaskException = 0,
  kWorkerCrashed = 1,
  kActorDied = 2,
  kUnschedulable = 3,
  kSystem = 4,
  kObjectLost = 5,
};

struct ErrorInfo {
  int kind = kTaskException;
  std::string type;
  std::string message;
  std::string task;
  std::string where;
  MSGPACK_DEFINE_ARRAY(kind, type, message, task, where);
};

// An argument of a submission: an object id, or the value itself.
struct TaskArg {
  bool is_ref = false;
  std::string data;  // object id (is_ref) or the msgpack-encoded value
  MSGPACK_DEFINE_ARRAY(is_ref, data);
};

enum TaskKind : uint8_t { kNormalTask = 0, kActorCreation = 1, kActorTask = 2 };

// max_retries of an actor task: as many as the actor's max_task_retries (which is the
// max_retries of its creation; -1 no limit).
constexpr int32_t kActorTaskRetries = -2;

// A submission, as the plugin hands it to the runtime (RayRuntimeApi::submit).
struct TaskRequest {
  uint8_t kind = kNormalTask;
  std::string function;  // registered name
  std::vector<TaskArg> args;
  uint32_t num_returns = 1;
  std::map<std::string, double> resources;
  int32_t max_retries = 3;
  int32_t max_calls = 0;  // 0: unlimited
  int32_t max_restarts = 0;
  std::string actor_id;    // actor tasks
  std::string actor_name;  // named actor creation
  // Run inside bundle `bundle_index` (-1: any) of this placement group (hex id; ""
  // none): the runtime renames `resources` to the bundle's (see ray/placement_group.h).
  std::string placement_group_id;
  int32_t bundle_index = -1;
  // Actor creation: outlives its job and its creator; ends only when killed (or with
  // the cluster). Named actors are found in `ray_namespace` ("": the job's).
  bool detached = false;
  std::string ray_namespace;
  // The runtime environment (JSON, as Ray's runtime_env) of the task or actor; "": the
  // job's. The runtime checks it (runtime/api/runtime_env.h).
  std::string runtime_env;
  int32_t max_concurrency = 1;  // actor creation: calls run at once (ray/actor.h)
  // In a placement group: the tasks and actors it submits (and theirs) run in the
  // group too, in any bundle, unless they name a group of their own (Ray's
  // placement_group_capture_child_tasks).
  bool placement_group_capture_child_tasks = false;
  // Actor creation: `detached` was set (SetLifetime); else the job's default applies
  // (RayConfig::default_actor_lifetime).
  bool lifetime_set = false;
  MSGPACK_DEFINE_ARRAY(kind, function, args, num_returns, resources, max_retries, max_calls,
                       max_restarts, actor_id, actor_name, placement_group_id, bundle_index,
                       detached, ray_namespace, runtime_env, max_concurrency,
                       placement_group_capture_child_tasks, lifetime_set);
};

// ray::Init's configuration, as a program hands it to the client library (ray/init.h
// documents each field).
struct InitRequest {
  std::string address;
  std::string token;
  std::vector<std::string> code_search_path;
  double num_cpus = -1;
  std::string temp_dir;
  std::string ray_namespace;
  std::string runtime_env;  // JSON; "": none
  bool actors_detached = false;  // default_actor_lifetime DETACHED
  MSGPACK_DEFINE_ARRAY(address, token, code_search_path, num_cpus, temp_dir, ray_namespace,
                       runtime_env, actors_detached);
};

template <typename T>
std::string Pack(const T& value) {
  msgpack::sbuffer buf;
  msgpack::pack(buf, value);
  return std::string(buf.data(), buf.size());
}

// Decodes `data` as a T. Throws msgpack::unpack_error (malformed bytes) or
// msgpack::type_error (not a T). Nothing keeps `data` alive after the call: a
// ray::Blob decoded this way copies its bytes (ray/values.h has the overload that
// lets it reference them).
template <typename T>
T Unpack(const char* data, size_t size) {
  auto by_reference = [](msgpack::type::object_type type, size_t, void*) {
    return type == msgpack::type::BIN;
  };
  msgpack::object_handle oh = msgpack::unpack(data, size, by_reference);
  return oh.get().as<T>();
}

}  // namespace ray::internal

namespace ray {

// A node of the cluster, as ray::Nodes() lists it (Ray's ray.nodes()).
struct NodeInfo {
  std::string node_id;  // 32 hex characters, as GetNodeId() returns
  std::string address;  // the node's IP address
  bool alive = false;   // false: left the cluster or stopped heartbeating
  std::map<std::string, double> resources_total;
  std::map<std::string, double> resources_available;  // empty for dead nodes
  MSGPACK_DEFINE(node_id, address, alive, resources_total, resources_available);
};

// A placement group as the runtime describes it (ray/placement_group.h). state:
// PENDING, CREATED, RESCHEDULING or REMOVED; bundle_node_ids[i]: the node (hex) that
// holds bundle i, "" while none does; detail: why it waits or why it was removed.
struct PlacementGroupInfo {
  std::string id;  // 36 hex characters
  std::string name;
  std::string strategy;  // PACK, SPREAD, STRICT_PACK or STRICT_SPREAD
  std::string state;
  std::vector<std::map<std::string, double>> bundles;
  std::vector<std::string> bundle_node_ids;
  std::string job_id;  // hex: the job that created it
  int64_t created_ms = 0;
  std::string detail;
  MSGPACK_DEFINE_ARRAY(id, name, strategy, state, bundles, bundle_node_ids, job_id, created_ms,
                       detail);
};

}  // namespace ray
