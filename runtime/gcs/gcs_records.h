#pragma once
// Records the GCS keeps besides nodes (protocol::NodeInfo), as they travel in
// kGcsCall bodies. Each packs as a msgpack array, so on the wire it is the same as
// the tuple named in its comment.

#include <cstdint>
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
// span's, task_id the task it ran in, empty on a driver). Times are wall-clock ms.
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

// Node and actor states as stored.
inline constexpr const char* kAlive = "ALIVE";
inline constexpr const char* kDead = "DEAD";

}  // namespace ray::gcs
