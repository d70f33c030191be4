#pragma once
// Records the GCS keeps besides nodes (protocol::NodeInfo), as they travel in
// kGcsCall bodies. Each packs as a msgpack array, so on the wire it is the same as
// the tuple named in its comment.

#include <cstdint>
#include <map>
#include <msgpack.hpp>
#include <string>
#include <vector>

namespace ray::gcs {

// "get_jobs" rows: tuple<job_id, pid, entry, start_ms, end_ms, exit_code>.
// end_ms == 0: still running (exit_code is then 0 and meaningless).
struct JobRecord {
  std::string job_id;
  int32_t pid = 0;
  std::string entry;
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  int32_t exit_code = 0;
  MSGPACK_DEFINE_ARRAY(job_id, pid, entry, start_ms, end_ms, exit_code);
};

// "add_task_events" items:
// tuple<task_id, job_id, name, node_id, worker, start_ms, end_ms, state>.
struct TaskEvent {
  std::string task_id;
  std::string job_id;
  std::string name;
  std::string node_id;
  std::string worker;
  int64_t start_ms = 0;
  int64_t end_ms = 0;
  std::string state;
  MSGPACK_DEFINE_ARRAY(task_id, job_id, name, node_id, worker, start_ms, end_ms, state);
};

// Task event states. RUNNING: dispatched to a worker (end_ms 0); FINISHED / FAILED:
// done, with start and end; PROFILE: a span recorded with ray::Profile (name is the
// span's, task_id the task it ran in, empty outside any task, as on a driver). Times are wall-clock ms.
inline constexpr const char* kTaskRunning = "RUNNING";
inline constexpr const char* kTaskFinished = "FINISHED";
inline constexpr const char* kTaskFailed = "FAILED";
inline constexpr const char* kTaskProfile = "PROFILE";

// "get_actors" rows: tuple<actor_id, name, node_id, job_id, state, ray_namespace>.
// The actor id is its creation task's id (which begins with the job id); name is ""
// if unnamed; state is ALIVE or DEAD; ray_namespace is the one its name lives in
// (unnamed actors: their job's).
struct ActorRecord {
  std::string actor_id;
  std::string name;
  std::string node_id;
  std::string job_id;
  std::string state;
  std::string ray_namespace;
  MSGPACK_DEFINE_ARRAY(actor_id, name, node_id, job_id, state, ray_namespace);
};

// "add_objects" items: tuple<object_id, node_id, size>; size in bytes, 0 if unknown.
struct ObjectLocation {
  std::string object_id;
  std::string node_id;
  uint64_t size = 0;
  MSGPACK_DEFINE_ARRAY(object_id, node_id, size);
};

// "get_objects" rows: tuple<object_id, node_ids, size>: an entry of the object
// directory (see GcsService: what raylets report there).
struct ObjectRecord {
  std::string object_id;
  std::vector<std::string> node_ids;
  uint64_t size = 0;
  MSGPACK_DEFINE_ARRAY(object_id, node_ids, size);
};

// "get_starts" reply: tuple<starts, last_start_ms>. Every start of a GCS server on
// the cluster's tables counts (the first, restarts by the supervisor, and a head
// started again on the same temp dir); last_start_ms is wall-clock ms.
struct GcsStarts {
  int64_t starts = 0;
  int64_t last_start_ms = 0;
  int64_t restarts() const { return starts > 0 ? starts - 1 : 0; }
};

// A placement group, as stored and as "get_placement_groups" lists it. pg_id: 36
// hex characters (as Ray's); strategy: PACK, SPREAD, STRICT_PACK or STRICT_SPREAD;
// bundle_nodes[i]: the node (binary id) bundle i is placed on, "" while unplaced;
// reserved[i]: that node holds the reservation. job_id: the creating job (binary);
// the group is removed when it finishes. detail: why it waits, or why it was removed.
struct PlacementGroupRecord {
  std::string pg_id;
  std::string name;
  std::string strategy;
  std::vector<std::map<std::string, double>> bundles;
  std::vector<std::string> bundle_nodes;
  std::vector<uint8_t> reserved;
  std::string state;
  std::string job_id;
  int64_t created_ms = 0;
  std::string detail;
  MSGPACK_DEFINE_ARRAY(pg_id, name, strategy, bundles, bundle_nodes, reserved, state, job_id,
                       created_ms, detail);
};

// Placement group states (Ray's): PENDING until every bundle is reserved, CREATED,
// RESCHEDULING after a node holding bundles died, REMOVED for good.
inline constexpr const char* kPgPending = "PENDING";
inline constexpr const char* kPgCreated = "CREATED";
inline constexpr const char* kPgRescheduling = "RESCHEDULING";
inline constexpr const char* kPgRemoved = "REMOVED";

// A bundle a node is asked to hold ("sync_bundles" reply): group, index, resources.
struct BundleAssignment {
  std::string pg_id;
  int32_t index = 0;
  std::map<std::string, double> resources;
  MSGPACK_DEFINE_ARRAY(pg_id, index, resources);
};

// "sync_bundles" body, each heartbeat of a raylet: its resources now and the bundles
// it holds and could not reserve (pairs of group id and index). The reply is what it
// is to hold (vector<BundleAssignment>) and a counter that changes whenever a group
// anywhere is CREATED or REMOVED (tasks waiting for a group look again then).
struct BundleSync {
  std::string node_id;
  std::map<std::string, double> total;
  std::map<std::string, double> available;
  std::vector<std::pair<std::string, int32_t>> held;
  std::vector<std::pair<std::string, int32_t>> refused;
  MSGPACK_DEFINE_ARRAY(node_id, total, available, held, refused);
};

struct BundleSyncReply {
  std::vector<BundleAssignment> wanted;
  uint64_t groups_version = 0;
  MSGPACK_DEFINE_ARRAY(wanted, groups_version);
};

// Node and actor states as stored.
inline constexpr const char* kAlive = "ALIVE";
inline constexpr const char* kDead = "DEAD";

}  // namespace ray::gcs
