#pragma once
// GcsStore: the GCS tables in one SQLite file (WAL journal, synchronous=NORMAL).
//
// Tables: nodes, jobs, actors, placement_groups, plugins, task_events, objects (locations), gcs_starts
// (one row per start of a GCS server on them). Writes a reply depends on
// (registration, state changes, actors, jobs, plugins) go to the database before the
// call returns. Writes nobody waits for (heartbeat timestamps, task events) are
// buffered in memory and written in one transaction by Flush(), which the owner calls
// every ~200 ms; the destructor flushes what is left. Reads see the database only,
// so a buffered heartbeat is visible after the next Flush().
//
// Every error is a Status naming the SQLite message and the file. Not thread-safe:
// one owner (the GCS server loop).

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/gcs/gcs_records.h"
#include "runtime/serialization/protocol.h"

struct sqlite3;
struct sqlite3_stmt;

namespace ray::gcs {

class GcsStore {
 public:
  // Opens (creating if needed) the database at `path` and its tables.
  static Result<std::unique_ptr<GcsStore>> Open(const std::string& path);
  // Copies the database at `from` (which may be in use, WAL included) to `to`, a new
  // file: a head started again on its temp dir takes its cluster's tables this way.
  static Status Copy(const std::string& from, const std::string& to);
  ~GcsStore();
  GcsStore(const GcsStore&) = delete;
  GcsStore& operator=(const GcsStore&) = delete;

  const std::string& path() const { return path_; }

  // Nodes. PutNode inserts or replaces the whole record (token is never stored).
  Status PutNode(const protocol::NodeInfo& node);
  Status SetNodeState(const std::string& node_id, const std::string& state);
  // Buffered; repeated heartbeats of one node coalesce into the last one.
  void BufferHeartbeat(const std::string& node_id, const std::map<std::string, double>& available,
                       int64_t now_ms);
  Result<std::vector<protocol::NodeInfo>> LoadNodes();

  // Actors. The caller checks name uniqueness with LiveActorByName first. A name is
  // unique among live actors of its namespace; a record without a name (a placement
  // update) keeps the name and namespace it had.
  Status PutActor(const std::string& actor_id, const std::string& name, const std::string& node_id,
                  const std::string& job_id, const std::string& ray_namespace = "");
  // The ALIVE actor holding `name` in `ray_namespace`, or "" (also for the empty name).
  Result<std::string> LiveActorByName(const std::string& name,
                                      const std::string& ray_namespace = "");
  // The node of the ALIVE actor, or "".
  Result<std::string> LiveActorNode(const std::string& actor_id);
  Status SetActorDead(const std::string& actor_id);
  Status SetNodeActorsDead(const std::string& node_id);
  // Every actor recorded, in the order first recorded.
  Result<std::vector<ActorRecord>> LoadActors();

  // Placement groups: inserted or replaced whole; loaded in the order first stored.
  Status PutPlacementGroup(const PlacementGroupRecord& pg);
  Result<std::vector<PlacementGroupRecord>> LoadPlacementGroups();

  // Plugins, by content hash. PutPlugin keeps the first bytes stored for a hash.
  Status PutPlugin(const std::string& hash, const std::string& name, const std::string& bytes,
                   int64_t now_ms);
  Result<std::optional<std::string>> GetPlugin(const std::string& hash);

  // Jobs. FinishJob is NotFound for a job never added.
  Status AddJob(const std::string& job_id, int32_t pid, const std::string& entry, int64_t now_ms,
                const std::string& ray_namespace = "");
  // The namespace the job was added with; "" for an unknown job.
  Result<std::string> JobNamespace(const std::string& job_id);
  Status FinishJob(const std::string& job_id, int32_t exit_code, int64_t now_ms);
  Result<std::vector<JobRecord>> LoadJobs();

  // Task events: buffered until the next Flush(), due early once many are pending.
  void BufferTaskEvents(std::vector<TaskEvent> events);
  bool FlushDue() const;
  Result<std::vector<TaskEvent>> LoadTaskEvents();
  // The last `limit` events written (0: all) of job `job_id` ("": every job), oldest
  // first. Buffered events are not included: Flush() first to see them.
  Result<std::vector<TaskEvent>> LoadTaskEvents(const std::string& job_id, size_t limit);

  // Object locations (object id, node id): buffered, written by Flush().
  void BufferObjectLocations(std::vector<std::pair<std::string, std::string>> locations);
  // The locations written, on ALIVE nodes, of jobs not finished, in write order.
  Result<std::vector<std::pair<std::string, std::string>>> LoadObjectLocations();

  // Counts a start of a GCS server on these tables (see GcsStarts).
  Result<GcsStarts> RecordStart(int64_t now_ms);
  // Jobs of a cluster that was stopped: ended now with `exit_code`.
  Status EndUnfinishedJobs(int32_t exit_code, int64_t now_ms);

  // Writes everything buffered in one transaction. On failure the buffer is kept
  // for the next attempt (task events beyond a cap are dropped and counted).
  Status Flush();
  size_t pending() const { return pending_heartbeats_.size() + pending_events_.size(); }

 private:
  struct PendingHeartbeat {
    std::map<std::string, double> available;
    int64_t ms = 0;
  };
  class Statement;
  struct Param;  // one bound parameter: BLOB (strings), INTEGER, or TEXT (states)

  explicit GcsStore(std::string path);
  Status Init();
  Status Exec(const char* sql);
  Status Error(const char* what) const;  // the current SQLite error, with the path
  Result<Statement*> Prepared(const char* sql);
  // Runs a cached statement that returns no rows; `what` names it in errors.
  Status Run(const char* what, const char* sql, std::initializer_list<Param> params);

  std::string path_;
  sqlite3* db_ = nullptr;
  std::map<std::string, std::unique_ptr<Statement>> statements_;  // by SQL text
  std::map<std::string, PendingHeartbeat> pending_heartbeats_;
  std::vector<TaskEvent> pending_events_;
  std::vector<std::pair<std::string, std::string>> pending_locations_;
};

}  // namespace ray::gcs
