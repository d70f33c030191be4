#pragma once
// Client side of the GCS protocol: one request, one reply, with the cluster token.
// Used by raylets, drivers and the CLI. Not thread-safe; cheap to create.
// With a GcsWatch (set_watch), calls fail at once with Unavailable while the GCS is
// known to be down, and a call that gets no answer tells the watch.

#include <map>
#include <memory>
#include <tuple>
#include <string>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/gcs/gcs_records.h"
#include "runtime/gcs/gcs_watch.h"
#include "runtime/serialization/protocol.h"
#include "runtime/transport/channel.h"

namespace ray::gcs {

class GcsClient {
 public:
  GcsClient(std::string endpoint, std::string token, int timeout_ms = 5000);
  // `watch` (not owned; null: none) must outlive the client's calls.
  void set_watch(GcsWatch* watch) { watch_ = watch; }

  Status Ping();
  Status RegisterNode(const protocol::NodeInfo& node);
  // `load`: the work waiting on the node for resources (what the autoscaler reads).
  Status Heartbeat(const std::string& node_id, const std::map<std::string, double>& available,
                   const std::vector<protocol::ResourceDemand>& load = {});
  Status UnregisterNode(const std::string& node_id);
  // How often a GCS server had started on the cluster's tables, as the last heartbeat
  // answered (0: none answered yet).
  int64_t gcs_starts() const { return gcs_starts_; }
  Result<std::vector<protocol::NodeInfo>> GetNodes();

  // The autoscaler's view (JSON), reported by `ray _monitor` every update; Get says
  // whether it reported in the last 30 s, and what.
  Status ReportAutoscaler(const std::string& status_json);
  Result<std::pair<bool, std::string>> GetAutoscaler();

  Status PutPlugin(const std::string& hash, const std::string& name, const std::string& bytes);
  Result<std::string> GetPlugin(const std::string& hash);  // NotFound if absent

  // AlreadyExists if a live actor holds the name in the namespace. An empty
  // namespace is that of the actor's job (or of `job_id`), as AddJob recorded it.
  Status RegisterNamedActor(const std::string& name, const std::string& actor_id,
                            const std::string& node_id, const std::string& ray_namespace = "");
  Result<std::string> LookupNamedActor(const std::string& name,
                                       const std::string& ray_namespace = "",
                                       const std::string& job_id = "");  // "" if none
  Status RemoveActor(const std::string& actor_id);
  // Records where an actor lives (any actor, named or not).
  Status RegisterActor(const std::string& actor_id, const std::string& node_id);
  Result<std::string> ActorNode(const std::string& actor_id);  // "" if not alive
  // Unnamed actors ALIVE on a node or DEAD, in bulk and in order: (id, node, alive).
  Status RecordActors(const std::vector<std::tuple<std::string, std::string, bool>>& records);

  // The object directory: which nodes hold which objects.
  Status AddObjectLocations(const std::vector<std::pair<std::string, std::string>>& locations);
  Result<std::vector<std::vector<std::string>>> GetObjectLocations(
      const std::vector<std::string>& object_ids);

  // The state API. AddObjects reports objects with their sizes (the directory entry
  // GetObjectLocations reads); GetObjects lists the directory (limit 0: all).
  Status AddObjects(const std::vector<ObjectLocation>& objects);
  Result<std::vector<ObjectRecord>> GetObjects(uint64_t limit = 0);
  Result<std::vector<ActorRecord>> GetActors();
  // The last `limit` task events (0: all) of `job_id` ("": every job), oldest first.
  Result<std::vector<TaskEvent>> GetTaskEvents(const std::string& job_id = "", uint64_t limit = 0);

  Status AddJob(const std::string& job_id, int pid, const std::string& entry,
                const std::string& ray_namespace = "");
  Status FinishJob(const std::string& job_id, int exit_code);
  Result<std::vector<JobRecord>> GetJobs();
  Status AddTaskEvents(const std::vector<TaskEvent>& events);

  // How often the GCS has started on this cluster's tables, and when it last did.
  Result<GcsStarts> GetStarts();

  // Any op by name (see GcsService::Call for the list): body in, body out. Error
  // replies map to codes: invalid token PermissionDenied, "... not found" and
  // "unknown node" NotFound, "... is taken" AlreadyExists; no reply Unavailable.
  Result<std::string> Call(const std::string& op, const std::string& body);

 private:
  std::string endpoint_;
  std::string token_;
  int timeout_ms_;
  GcsWatch* watch_ = nullptr;
  int64_t gcs_starts_ = 0;
  // One connection for the client's calls (copies of the client share it).
  std::shared_ptr<transport::Channel> channel_;

  // Sends one request and returns the body of a reply of type `expect`.
  Result<std::string> Exchange(protocol::MessageType type, const std::string& body,
                               protocol::MessageType expect);
  Status NodeRequest(protocol::MessageType type, const std::string& body);
};

}  // namespace ray::gcs
