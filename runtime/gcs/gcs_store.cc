#include "runtime/gcs/gcs_store.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include "runtime/base/logging.h"

namespace ray::gcs {

namespace {

constexpr int kSchemaVersion = 3;  // 3: namespaces of jobs and actors
constexpr int kBusyTimeoutMs = 2000;
// Task events pending before a flush is due early (FlushDue), and at most kept
// across failed flushes.
constexpr size_t kFlushThreshold = 10000;
constexpr size_t kMaxPendingEvents = 100000;

// Ids, names and payloads are arbitrary bytes: they are stored as BLOBs. States are
// TEXT so that SQL can compare them with literals.
constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS nodes(
  node_id BLOB PRIMARY KEY, address BLOB, raylet_socket BLOB, session_dir BLOB,
  total BLOB, available BLOB, state TEXT, last_heartbeat_ms INTEGER, pid INTEGER,
  peer_address BLOB);
CREATE TABLE IF NOT EXISTS jobs(
  job_id BLOB PRIMARY KEY, pid INTEGER, entry BLOB, start_ms INTEGER, end_ms INTEGER,
  exit_code INTEGER, ray_namespace BLOB NOT NULL DEFAULT x'');
-- ray_namespace: "" for an unnamed actor (it is its job's, see LoadActors).
CREATE TABLE IF NOT EXISTS actors(
  actor_id BLOB PRIMARY KEY, name BLOB, node_id BLOB, job_id BLOB, state TEXT,
  ray_namespace BLOB NOT NULL DEFAULT x'');
DROP INDEX IF EXISTS actors_live_name;
CREATE UNIQUE INDEX IF NOT EXISTS actors_live_ns_name ON actors(ray_namespace, name)
  WHERE state = 'ALIVE' AND length(name) > 0;
CREATE INDEX IF NOT EXISTS actors_by_node ON actors(node_id, state);
CREATE TABLE IF NOT EXISTS plugins(
  hash BLOB PRIMARY KEY, name BLOB, bytes BLOB, size INTEGER, added_ms INTEGER);
CREATE TABLE IF NOT EXISTS task_events(
  task_id BLOB, job_id BLOB, name BLOB, node_id BLOB, worker BLOB, start_ms INTEGER,
  end_ms INTEGER, state TEXT);
-- No index on job_id: every task adds a row, and LoadTaskEvents scans anyway.
DROP INDEX IF EXISTS task_events_by_job;
CREATE TABLE IF NOT EXISTS objects(object_id BLOB, node_id BLOB, PRIMARY KEY(object_id, node_id));
-- Placement groups: the msgpack PlacementGroupRecord, by group id.
CREATE TABLE IF NOT EXISTS placement_groups(pg_id BLOB PRIMARY KEY, record BLOB);
-- One row per start of a GCS server on these tables (wall-clock ms).
CREATE TABLE IF NOT EXISTS gcs_starts(start_ms INTEGER);
)sql";

// One use of a prepared statement: binds parameters in order, steps, and resets the
// statement when it goes out of scope so it can be reused.
class Use {
 public:
  explicit Use(sqlite3_stmt* stmt) : stmt_(stmt) {}
  ~Use() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  Use& Blob(std::string_view v) {
    Check(sqlite3_bind_blob64(stmt_, ++index_, v.data(), v.size(), SQLITE_TRANSIENT));
    return *this;
  }
  Use& Text(std::string_view v) {
    Check(sqlite3_bind_text64(stmt_, ++index_, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
    return *this;
  }
  Use& Int(int64_t v) {
    Check(sqlite3_bind_int64(stmt_, ++index_, v));
    return *this;
  }
  // SQLITE_ROW, SQLITE_DONE or an error code (a failed bind included).
  int Step() { return rc_ != SQLITE_OK ? rc_ : sqlite3_step(stmt_); }
  std::string ColumnBytes(int col) const {
    const void* p = sqlite3_column_blob(stmt_, col);
    int n = sqlite3_column_bytes(stmt_, col);
    return p ? std::string(static_cast<const char*>(p), n) : std::string();
  }
  int64_t ColumnInt(int col) const { return sqlite3_column_int64(stmt_, col); }

 private:
  void Check(int rc) {
    if (rc_ == SQLITE_OK) rc_ = rc;
  }
  sqlite3_stmt* stmt_;
  int index_ = 0;
  int rc_ = SQLITE_OK;
};

std::string PackMap(const std::map<std::string, double>& m) {
  msgpack::sbuffer buf;
  msgpack::pack(buf, m);
  return std::string(buf.data(), buf.size());
}

std::map<std::string, double> UnpackMap(const std::string& bytes, const std::string& node_id) {
  if (bytes.empty()) return {};
  auto m = protocol::DecodeBody<std::map<std::string, double>>(bytes, "resource map");
  if (!m.ok()) {
    RAY_LOG_WARN("node {}: stored {}; using an empty map", node_id, m.status().message());
    return {};
  }
  return std::move(m).value();
}

}  // namespace

struct GcsStore::Param {
  enum Kind { kBlob, kText, kInt };
  Param(const std::string& s) : kind(kBlob), bytes(s) {}
  Param(int64_t i) : kind(kInt), integer(i) {}
  static Param Text(const std::string& s) {
    Param p(s);
    p.kind = kText;
    return p;
  }
  Kind kind;
  std::string_view bytes;  // the argument outlives the Run() call it is passed to
  int64_t integer = 0;
};

class GcsStore::Statement {
 public:
  explicit Statement(sqlite3_stmt* stmt) : stmt_(stmt) {}
  ~Statement() { sqlite3_finalize(stmt_); }
  sqlite3_stmt* get() const { return stmt_; }

 private:
  sqlite3_stmt* stmt_;
};

GcsStore::GcsStore(std::string path) : path_(std::move(path)) {}

GcsStore::~GcsStore() {
  Status st = Flush();
  if (!st.ok()) RAY_LOG_ERROR("closing GCS store: {}", st.message());
  statements_.clear();  // statements are finalized before the connection closes
  if (db_) sqlite3_close(db_);
}

Result<std::unique_ptr<GcsStore>> GcsStore::Open(const std::string& path) {
  std::unique_ptr<GcsStore> store(new GcsStore(path));
  RAY_RETURN_IF_ERROR(store->Init());
  return store;
}

Status GcsStore::Init() {
  int rc =
      sqlite3_open_v2(path_.c_str(), &db_,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    return Status::Unavailable(fmt::format("cannot open GCS database {}: {}", path_, msg));
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, kBusyTimeoutMs);
  RAY_RETURN_IF_ERROR(Exec("PRAGMA journal_mode=WAL"));
  RAY_RETURN_IF_ERROR(Exec("PRAGMA synchronous=NORMAL"));

  int64_t found = 0;
  {
    RAY_ASSIGN_OR_RETURN(Statement * version, Prepared("PRAGMA user_version"));
    Use use(version->get());
    if (use.Step() != SQLITE_ROW) return Error("reading the schema version");
    found = use.ColumnInt(0);
  }
  if (found > kSchemaVersion) {
    return Status::FailedPrecondition(
        fmt::format("GCS database {} has schema version {}; this build reads up to {}", path_,
                    found, kSchemaVersion));
  }
  if (found > 0 && found < 3) {
    // Version 2 tables gain the namespace columns (appended, as in version 3).
    RAY_RETURN_IF_ERROR(Exec(
        "ALTER TABLE jobs ADD COLUMN ray_namespace BLOB NOT NULL DEFAULT x'';"
        "ALTER TABLE actors ADD COLUMN ray_namespace BLOB NOT NULL DEFAULT x'';"));
  }
  RAY_RETURN_IF_ERROR(Exec(kSchema));
  return Exec(fmt::format("PRAGMA user_version={}", kSchemaVersion).c_str());
}

Status GcsStore::Exec(const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    return Status::Internal(fmt::format("GCS database {}: {} (in: {:.60})", path_, msg, sql));
  }
  return Status::Ok();
}

Status GcsStore::Error(const char* what) const {
  return Status::Internal(
      fmt::format("GCS database {}: {} while {}", path_, sqlite3_errmsg(db_), what));
}

Result<GcsStore::Statement*> GcsStore::Prepared(const char* sql) {
  auto it = statements_.find(sql);
  if (it != statements_.end()) return it->second.get();
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr) != SQLITE_OK) {
    return Error("preparing a statement");
  }
  auto* raw = new Statement(stmt);
  statements_.emplace(sql, std::unique_ptr<Statement>(raw));
  return raw;
}

Status GcsStore::Run(const char* what, const char* sql, std::initializer_list<Param> params) {
  RAY_ASSIGN_OR_RETURN(Statement * stmt, Prepared(sql));
  Use use(stmt->get());
  for (const Param& p : params) {
    if (p.kind == Param::kInt) {
      use.Int(p.integer);
    } else if (p.kind == Param::kText) {
      use.Text(p.bytes);
    } else {
      use.Blob(p.bytes);
    }
  }
  if (use.Step() != SQLITE_DONE) return Error(what);
  return Status::Ok();
}

Status GcsStore::PutNode(const protocol::NodeInfo& n) {
  return Run("writing a node",
             "INSERT INTO nodes VALUES(?,?,?,?,?,?,?,?,?,?) ON CONFLICT(node_id) DO UPDATE SET "
             "address=excluded.address, raylet_socket=excluded.raylet_socket, "
             "session_dir=excluded.session_dir, total=excluded.total, "
             "available=excluded.available, state=excluded.state, "
             "last_heartbeat_ms=excluded.last_heartbeat_ms, pid=excluded.pid, "
             "peer_address=excluded.peer_address",
             {n.node_id, n.address, n.raylet_socket, n.session_dir, PackMap(n.total),
              PackMap(n.available), Param::Text(n.state), n.last_heartbeat_ms, n.pid,
              n.peer_address});
}

Status GcsStore::SetNodeState(const std::string& node_id, const std::string& state) {
  return Run("updating a node's state", "UPDATE nodes SET state=? WHERE node_id=?",
             {Param::Text(state), node_id});
}

void GcsStore::BufferHeartbeat(const std::string& node_id,
                               const std::map<std::string, double>& available, int64_t now_ms) {
  pending_heartbeats_[node_id] = PendingHeartbeat{available, now_ms};
}

Result<std::vector<protocol::NodeInfo>> GcsStore::LoadNodes() {
  RAY_ASSIGN_OR_RETURN(Statement * stmt,
                       Prepared("SELECT node_id, address, raylet_socket, session_dir, total, "
                                "available, state, last_heartbeat_ms, pid, peer_address "
                                "FROM nodes "
                                "ORDER BY rowid"));
  Use use(stmt->get());
  std::vector<protocol::NodeInfo> nodes;
  int rc;
  while ((rc = use.Step()) == SQLITE_ROW) {
    protocol::NodeInfo n;
    n.node_id = use.ColumnBytes(0);
    n.address = use.ColumnBytes(1);
    n.raylet_socket = use.ColumnBytes(2);
    n.session_dir = use.ColumnBytes(3);
    n.total = UnpackMap(use.ColumnBytes(4), n.node_id);
    n.available = UnpackMap(use.ColumnBytes(5), n.node_id);
    n.state = use.ColumnBytes(6);
    n.last_heartbeat_ms = use.ColumnInt(7);
    n.pid = static_cast<int32_t>(use.ColumnInt(8));
    n.peer_address = use.ColumnBytes(9);
    nodes.push_back(std::move(n));
  }
  if (rc != SQLITE_DONE) return Error("reading nodes");
  return nodes;
}

Status GcsStore::PutActor(const std::string& actor_id, const std::string& name,
                          const std::string& node_id, const std::string& job_id,
                          const std::string& ray_namespace) {
  return Run("writing an actor",
             "INSERT INTO actors(actor_id, name, node_id, job_id, state, ray_namespace) "
             "VALUES(?,?,?,?,'ALIVE',?) ON CONFLICT(actor_id) DO UPDATE SET "
             // A record without a name (a placement update) keeps the name it had.
             "name=CASE WHEN length(excluded.name) > 0 THEN excluded.name ELSE actors.name END, "
             "ray_namespace=CASE WHEN length(excluded.name) > 0 THEN excluded.ray_namespace "
             "ELSE actors.ray_namespace END, "
             "node_id=excluded.node_id, job_id=excluded.job_id, "
             "state='ALIVE'",
             {actor_id, name, node_id, job_id, ray_namespace});
}

Result<std::string> GcsStore::LiveActorNode(const std::string& actor_id) {
  RAY_ASSIGN_OR_RETURN(Statement * stmt,
                       Prepared("SELECT node_id FROM actors WHERE actor_id=? AND state='ALIVE'"));
  Use use(stmt->get());
  use.Blob(actor_id);
  int rc = use.Step();
  if (rc == SQLITE_ROW) return use.ColumnBytes(0);
  if (rc != SQLITE_DONE) return Error("looking up an actor");
  return std::string();
}

Result<std::string> GcsStore::LiveActorByName(const std::string& name,
                                              const std::string& ray_namespace) {
  if (name.empty()) return std::string();
  RAY_ASSIGN_OR_RETURN(
      Statement * stmt,
      Prepared("SELECT actor_id FROM actors WHERE ray_namespace=? AND name=? AND state='ALIVE' "
               "LIMIT 1"));
  Use use(stmt->get());
  use.Blob(ray_namespace).Blob(name);
  int rc = use.Step();
  if (rc == SQLITE_ROW) return use.ColumnBytes(0);
  if (rc != SQLITE_DONE) return Error("looking up an actor");
  return std::string();
}

Status GcsStore::SetActorDead(const std::string& actor_id) {
  return Run("removing an actor", "UPDATE actors SET state='DEAD' WHERE actor_id=?", {actor_id});
}

Status GcsStore::SetNodeActorsDead(const std::string& node_id) {
  return Run("marking a node's actors dead",
             "UPDATE actors SET state='DEAD' WHERE node_id=? AND state='ALIVE'", {node_id});
}

Result<std::vector<ActorRecord>> GcsStore::LoadActors() {
  RAY_ASSIGN_OR_RETURN(
      Statement * stmt,
      // An actor without a namespace of its own is in its job's (its id begins with
      // its job's id).
      Prepared("SELECT a.actor_id, a.name, a.node_id, a.job_id, a.state, "
               "CASE WHEN length(a.ray_namespace) > 0 THEN a.ray_namespace "
               "ELSE coalesce(j.ray_namespace, x'') END "
               "FROM actors a LEFT JOIN jobs j ON j.job_id = substr(a.actor_id, 1, length(j.job_id)) "
               "ORDER BY a.rowid"));
  Use use(stmt->get());
  std::vector<ActorRecord> actors;
  int rc;
  while ((rc = use.Step()) == SQLITE_ROW) {
    actors.push_back(ActorRecord{use.ColumnBytes(0), use.ColumnBytes(1), use.ColumnBytes(2),
                                 use.ColumnBytes(3), use.ColumnBytes(4), use.ColumnBytes(5)});
  }
  if (rc != SQLITE_DONE) return Error("reading actors");
  return actors;
}

Status GcsStore::PutPlacementGroup(const PlacementGroupRecord& pg) {
  msgpack::sbuffer buf;
  msgpack::pack(buf, pg);
  return Run("storing a placement group", "INSERT OR REPLACE INTO placement_groups VALUES(?,?)",
             {pg.pg_id, std::string(buf.data(), buf.size())});
}

Result<std::vector<PlacementGroupRecord>> GcsStore::LoadPlacementGroups() {
  RAY_ASSIGN_OR_RETURN(Statement * stmt,
                       Prepared("SELECT pg_id, record FROM placement_groups ORDER BY rowid"));
  Use use(stmt->get());
  std::vector<PlacementGroupRecord> out;
  int rc;
  while ((rc = use.Step()) == SQLITE_ROW) {
    auto pg = protocol::DecodeBody<PlacementGroupRecord>(use.ColumnBytes(1), "placement group");
    if (!pg.ok()) {
      RAY_LOG_WARN("placement group {}: stored {}; skipped", use.ColumnBytes(0),
                   pg.status().message());
      continue;
    }
    out.push_back(std::move(pg).value());
  }
  if (rc != SQLITE_DONE) return Error("reading placement groups");
  return out;
}

Status GcsStore::PutPlugin(const std::string& hash, const std::string& name,
                           const std::string& bytes, int64_t now_ms) {
  return Run("storing a plugin", "INSERT OR IGNORE INTO plugins VALUES(?,?,?,?,?)",
             {hash, name, bytes, static_cast<int64_t>(bytes.size()), now_ms});
}

Result<std::optional<std::string>> GcsStore::GetPlugin(const std::string& hash) {
  RAY_ASSIGN_OR_RETURN(Statement * stmt, Prepared("SELECT bytes FROM plugins WHERE hash=?"));
  Use use(stmt->get());
  use.Blob(hash);
  int rc = use.Step();
  if (rc == SQLITE_ROW) return std::optional<std::string>(use.ColumnBytes(0));
  if (rc != SQLITE_DONE) return Error("reading a plugin");
  return std::optional<std::string>();
}

Status GcsStore::AddJob(const std::string& job_id, int32_t pid, const std::string& entry,
                        int64_t now_ms, const std::string& ray_namespace) {
  return Run("adding a job",
             "INSERT INTO jobs(job_id, pid, entry, start_ms, end_ms, exit_code, ray_namespace) "
             "VALUES(?,?,?,?,0,0,?) ON CONFLICT(job_id) DO UPDATE SET "
             "pid=excluded.pid, entry=excluded.entry, start_ms=excluded.start_ms, "
             "end_ms=0, exit_code=0, ray_namespace=excluded.ray_namespace",
             {job_id, pid, entry, now_ms, ray_namespace});
}

Result<std::string> GcsStore::JobNamespace(const std::string& job_id) {
  RAY_ASSIGN_OR_RETURN(Statement * stmt, Prepared("SELECT ray_namespace FROM jobs WHERE job_id=?"));
  Use use(stmt->get());
  use.Blob(job_id);
  int rc = use.Step();
  if (rc == SQLITE_ROW) return use.ColumnBytes(0);
  if (rc != SQLITE_DONE) return Error("looking up a job's namespace");
  return std::string();
}

Status GcsStore::FinishJob(const std::string& job_id, int32_t exit_code, int64_t now_ms) {
  RAY_RETURN_IF_ERROR(Run("finishing a job", "UPDATE jobs SET end_ms=?, exit_code=? WHERE job_id=?",
                          {now_ms, exit_code, job_id}));
  if (sqlite3_changes(db_) == 0) return Status::NotFound("job " + job_id + " not found");
  return Status::Ok();
}

Result<std::vector<JobRecord>> GcsStore::LoadJobs() {
  RAY_ASSIGN_OR_RETURN(Statement * stmt,
                       Prepared("SELECT job_id, pid, entry, start_ms, end_ms, exit_code FROM jobs "
                                "ORDER BY start_ms, rowid"));
  Use use(stmt->get());
  std::vector<JobRecord> jobs;
  int rc;
  while ((rc = use.Step()) == SQLITE_ROW) {
    jobs.push_back(JobRecord{use.ColumnBytes(0), static_cast<int32_t>(use.ColumnInt(1)),
                             use.ColumnBytes(2), use.ColumnInt(3), use.ColumnInt(4),
                             static_cast<int32_t>(use.ColumnInt(5))});
  }
  if (rc != SQLITE_DONE) return Error("reading jobs");
  return jobs;
}

void GcsStore::BufferTaskEvents(std::vector<TaskEvent> events) {
  pending_events_.insert(pending_events_.end(), std::make_move_iterator(events.begin()),
                         std::make_move_iterator(events.end()));
}

bool GcsStore::FlushDue() const { return pending_events_.size() >= kFlushThreshold; }

Result<std::vector<TaskEvent>> GcsStore::LoadTaskEvents() { return LoadTaskEvents("", 0); }

Result<std::vector<TaskEvent>> GcsStore::LoadTaskEvents(const std::string& job_id,
                                                        size_t limit) {
  RAY_ASSIGN_OR_RETURN(
      Statement * stmt,
      Prepared("SELECT task_id, job_id, name, node_id, worker, start_ms, end_ms, state FROM "
               "(SELECT rowid AS r, * FROM task_events WHERE length(?) = 0 OR job_id = ? "
               "ORDER BY rowid DESC LIMIT ?) ORDER BY r"));
  Use use(stmt->get());
  use.Blob(job_id).Blob(job_id).Int(limit == 0 ? -1 : static_cast<int64_t>(limit));
  std::vector<TaskEvent> events;
  int rc;
  while ((rc = use.Step()) == SQLITE_ROW) {
    events.push_back(TaskEvent{use.ColumnBytes(0), use.ColumnBytes(1), use.ColumnBytes(2),
                               use.ColumnBytes(3), use.ColumnBytes(4), use.ColumnInt(5),
                               use.ColumnInt(6), use.ColumnBytes(7)});
  }
  if (rc != SQLITE_DONE) return Error("reading task events");
  return events;
}

void GcsStore::BufferObjectLocations(std::vector<std::pair<std::string, std::string>> locations) {
  pending_locations_.insert(pending_locations_.end(), std::make_move_iterator(locations.begin()),
                            std::make_move_iterator(locations.end()));
}

Status GcsStore::Flush() {
  if (pending_heartbeats_.empty() && pending_events_.empty() && pending_locations_.empty()) {
    return Status::Ok();
  }
  auto write_all = [&]() -> Status {
    RAY_RETURN_IF_ERROR(Exec("BEGIN IMMEDIATE"));
    for (const auto& [node_id, hb] : pending_heartbeats_) {
      RAY_RETURN_IF_ERROR(Run("writing a heartbeat",
                              "UPDATE nodes SET available=?, last_heartbeat_ms=? WHERE node_id=?",
                              {PackMap(hb.available), hb.ms, node_id}));
    }
    for (const TaskEvent& e : pending_events_) {
      RAY_RETURN_IF_ERROR(Run("writing a task event",
                              "INSERT INTO task_events VALUES(?,?,?,?,?,?,?,?)",
                              {e.task_id, e.job_id, e.name, e.node_id, e.worker, e.start_ms,
                               e.end_ms, Param::Text(e.state)}));
    }
    for (const auto& [object_id, node_id] : pending_locations_) {
      RAY_RETURN_IF_ERROR(Run("writing an object location",
                              "INSERT OR IGNORE INTO objects VALUES(?,?)", {object_id, node_id}));
    }
    return Exec("COMMIT");
  };
  Status st = write_all();
  if (st.ok()) {
    pending_heartbeats_.clear();
    pending_events_.clear();
    pending_locations_.clear();
    return st;
  }
  if (!sqlite3_get_autocommit(db_)) (void)Exec("ROLLBACK");
  if (pending_events_.size() > kMaxPendingEvents) {
    size_t drop = pending_events_.size() - kMaxPendingEvents;
    pending_events_.erase(pending_events_.begin(), pending_events_.begin() + drop);
    return Status(st.code(), fmt::format("{} ({} task events dropped)", st.message(), drop));
  }
  return st;
}

Result<GcsStarts> GcsStore::RecordStart(int64_t now_ms) {
  RAY_RETURN_IF_ERROR(Run("recording a start", "INSERT INTO gcs_starts VALUES(?)", {now_ms}));
  RAY_ASSIGN_OR_RETURN(Statement * stmt, Prepared("SELECT count(*) FROM gcs_starts"));
  Use use(stmt->get());
  if (use.Step() != SQLITE_ROW) return Error("counting starts");
  return GcsStarts{use.ColumnInt(0), now_ms};
}

Result<std::vector<std::pair<std::string, std::string>>> GcsStore::LoadObjectLocations() {
  // Those the GCS would still list: on live nodes, of jobs not finished (an object id
  // begins with its job's id).
  RAY_ASSIGN_OR_RETURN(
      Statement * stmt,
      Prepared("SELECT o.object_id, o.node_id FROM objects o JOIN nodes n "
               "ON n.node_id = o.node_id AND n.state = 'ALIVE' WHERE NOT EXISTS "
               "(SELECT 1 FROM jobs j WHERE j.end_ms > 0 AND length(j.job_id) > 0 AND "
               "substr(o.object_id, 1, length(j.job_id)) = j.job_id) ORDER BY o.rowid"));
  Use use(stmt->get());
  std::vector<std::pair<std::string, std::string>> out;
  int rc;
  while ((rc = use.Step()) == SQLITE_ROW) out.emplace_back(use.ColumnBytes(0), use.ColumnBytes(1));
  if (rc != SQLITE_DONE) return Error("reading object locations");
  return out;
}

Status GcsStore::EndUnfinishedJobs(int32_t exit_code, int64_t now_ms) {
  return Run("ending the jobs of a stopped cluster",
             "UPDATE jobs SET end_ms=?, exit_code=? WHERE end_ms=0", {now_ms, exit_code});
}

Status GcsStore::Copy(const std::string& from, const std::string& to) {
  sqlite3* src = nullptr;
  sqlite3* dst = nullptr;
  auto close = [&] {
    if (src) sqlite3_close(src);
    if (dst) sqlite3_close(dst);
  };
  if (sqlite3_open_v2(from.c_str(), &src, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    std::string msg = src ? sqlite3_errmsg(src) : "out of memory";
    close();
    return Status::Unavailable(fmt::format("cannot open GCS database {}: {}", from, msg));
  }
  if (sqlite3_open_v2(to.c_str(), &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    std::string msg = dst ? sqlite3_errmsg(dst) : "out of memory";
    close();
    return Status::Unavailable(fmt::format("cannot create GCS database {}: {}", to, msg));
  }
  sqlite3_backup* backup = sqlite3_backup_init(dst, "main", src, "main");
  int rc = SQLITE_ERROR;
  if (backup != nullptr) {
    rc = sqlite3_backup_step(backup, -1);
    sqlite3_backup_finish(backup);
  }
  std::string msg = sqlite3_errmsg(dst);
  close();
  if (rc != SQLITE_DONE) {
    return Status::DataLoss(fmt::format("cannot copy GCS database {} to {}: {}", from, to, msg));
  }
  return Status::Ok();
}

}  // namespace ray::gcs
