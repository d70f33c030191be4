#pragma once
// GcsService: the GCS request handling, without sockets. HandleFrame() takes one frame
// from a peer and returns the reply frame, or nothing when the frame is dropped
// (malformed, wrong version, unexpected type: logged as a warning naming the peer).
// Tick() does the periodic work: the liveness sweep and the write-behind flush.
// The server loop in gcs_server.cc owns the socket and drives both.
//
// Nodes live in memory (loaded from the store at start) and are written through to
// the store; liveness uses the monotonic clock, recorded times the wall clock. A GCS
// started again on its tables (after a crash) rebuilds what it keeps in memory from
// them: the nodes (ALIVE ones get a full heartbeat timeout to check in), the object
// directory; the autoscaler's view comes with its next report.
// Never throws on peer data. Not thread-safe.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/gcs/gcs_store.h"
#include "runtime/gcs/placement_groups.h"
#include "runtime/serialization/protocol.h"

namespace ray::gcs {

class GcsService {
 public:
  // Nodes stored ALIVE get a full heartbeat timeout from `now_mono_ms` to check in
  // again (the GCS heard nothing while it was down).
  static Result<std::unique_ptr<GcsService>> Create(std::unique_ptr<GcsStore> store,
                                                    std::string token, int64_t heartbeat_timeout_ms,
                                                    int64_t now_mono_ms);

  std::optional<std::string> HandleFrame(std::string_view peer, std::string_view frame);

  // Call often (every ~50 ms); sweeps every ~500 ms and flushes every ~200 ms. A gap
  // of more than half the heartbeat timeout since the last Tick means the GCS itself
  // did not run: every node then gets a full timeout to check in again.
  void Tick(int64_t now_mono_ms);
  // Marks ALIVE nodes silent for longer than the timeout DEAD, and their actors.
  void SweepDeadNodes(int64_t now_mono_ms);
  // Writes what the store has buffered; logs on failure.
  void Flush();

 private:
  struct Node {
    protocol::NodeInfo info;
    int64_t last_seen_mono_ms = 0;
  };
  using Op = Result<std::string> (GcsService::*)(const std::string& body);

  GcsService(std::unique_ptr<GcsStore> store, std::string token, int64_t heartbeat_timeout_ms);
  bool TokenOk(const std::string& token) const;

  protocol::GcsReply RegisterNode(protocol::NodeInfo node);
  protocol::GcsReply Heartbeat(const protocol::Heartbeat& hb);
  protocol::GcsReply UnregisterNode(const protocol::Heartbeat& hb);
  protocol::CallReply Call(const protocol::CallRequest& request);
  Status MarkDead(Node& node);

  // kGcsCall operations, by name in Call().
  Result<std::string> Ping(const std::string& body);
  // How often a GCS started on these tables (see GcsStarts): [starts, last_start_ms].
  Result<std::string> GetStarts(const std::string& body);
  Result<std::string> GetNodes(const std::string& body);
  Result<std::string> PutPlugin(const std::string& body);
  Result<std::string> GetPlugin(const std::string& body);
  Result<std::string> RegisterActor(const std::string& body);
  Result<std::string> GetActor(const std::string& body);
  // `ray_namespace`, or if empty the namespace of the job that `id` (a job, task or
  // actor id) belongs to ("" for a job never added).
  Result<std::string> NamespaceOf(const std::string& ray_namespace, const std::string& id);
  Result<std::string> RemoveActor(const std::string& body);
  // Unnamed actors, in bulk: [actor_id, node_id, alive] each, in order.
  Result<std::string> RecordActors(const std::string& body);
  Result<std::string> AddJob(const std::string& body);
  Result<std::string> FinishJob(const std::string& body);
  Result<std::string> GetJobs(const std::string& body);
  Result<std::string> AddTaskEvents(const std::string& body);
  Result<std::string> GetActorNode(const std::string& body);
  Result<std::string> AddObjectLocations(const std::string& body);
  Result<std::string> GetObjectLocations(const std::string& body);
  // The state API (ray list, ray timeline).
  Result<std::string> AddObjects(const std::string& body);
  Result<std::string> GetObjects(const std::string& body);
  Result<std::string> GetActors(const std::string& body);
  Result<std::string> GetTaskEvents(const std::string& body);
  // The autoscaler (`ray _monitor`) reports its view (JSON) every update; raylets
  // ask whether one is alive (then work no node fits waits instead of failing).
  Result<std::string> ReportAutoscaler(const std::string& body);
  Result<std::string> GetAutoscaler(const std::string& body);
  // The dashboard (`ray _dashboard`) reports its URL every few seconds; body: the URL
  // as bytes. get_webui_url answers it, "" when no dashboard reported in 30 s.
  Result<std::string> SetWebuiUrl(const std::string& body);
  Result<std::string> GetWebuiUrl(const std::string& body);
  Result<std::string> GetNamespace(const std::string& job_id);
  // Placement groups (see placement_groups.h). create: [name, strategy, bundles,
  // job_id] -> the PlacementGroupRecord; remove: the group id; get: [id, name] (id
  // "": the live group of that name) -> the record; get_placement_groups: every
  // record; sync_bundles: BundleSync -> BundleSyncReply (raylets).
  Result<std::string> CreatePlacementGroup(const std::string& body);
  Result<std::string> RemovePlacementGroup(const std::string& body);
  Result<std::string> GetPlacementGroup(const std::string& body);
  Result<std::string> GetPlacementGroups(const std::string& body);
  Result<std::string> SyncBundles(const std::string& body);
  // The live nodes as bundle placement sees them, by id.
  std::vector<scheduler::BundleNode> LiveNodes() const;
  bool AutoscalerAlive() const;

  std::unique_ptr<GcsStore> store_;
  std::unique_ptr<PlacementGroups> groups_;
  std::string token_;
  int64_t heartbeat_timeout_ms_;
  int64_t sweep_interval_ms_;
  std::map<std::string, Node> nodes_;  // by node_id
  // The object directory: what raylets reported (see "add_objects"). Dead nodes and
  // finished jobs leave it.
  struct DirectoryEntry {
    std::vector<std::string> nodes;
    uint64_t size = 0;  // 0: not reported
  };
  std::unordered_map<std::string, DirectoryEntry> object_locations_;
  int64_t last_sweep_ms_ = 0;
  int64_t last_flush_ms_ = 0;
  int64_t last_tick_ms_ = 0;
  GcsStarts starts_;                // counting this one
  std::string autoscaler_status_;   // its last report
  int64_t autoscaler_seen_ms_ = 0;  // monotonic; 0: never
  std::string webui_url_;           // the dashboard's last report
  int64_t webui_seen_ms_ = 0;       // monotonic; 0: never
};

}  // namespace ray::gcs
