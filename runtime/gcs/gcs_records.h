#pragma once
// Records the GCS keeps besides nodes (protocol::NodeInfo), as they travel in
// kGcsCall bodies. Each packs as a msgpack array, so on the wire it is the same as
// the tuple named in its comment.

#include <cstdint>
#include <msgpack.hpp>
#include <string>

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

// Node and actor states as stored.
inline constexpr const char* kAlive = "ALIVE";
inline constexpr const char* kDead = "DEAD";

}  // namespace ray::gcs
