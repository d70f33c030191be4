#pragma once
// The API's calls that the GCS answers, relayed by the raylet: actor names, shipped
// blobs (a runtime_env's working_dir or plugin), the nodes and the cluster's resources,
// placement groups, a job's namespace and the dashboard's URL. Each is one request to
// the GCS; this node's own resources are the raylet's (fresher than its last
// heartbeat), and creating or removing a placement group syncs this node's bundles at
// once (`sync_bundles`).
//
// The raylet loop owns one. While the GCS is down these calls wait in the raylet's
// backlog; an answer of Unavailable means the GCS went down during the call.

#include <functional>
#include <map>
#include <string>

#include "runtime/base/status.h"
#include "runtime/gcs/gcs_client.h"
#include "runtime/scheduler/placement.h"
#include "runtime/scheduler/resources.h"

namespace ray::raylet {

class GcsCalls {
 public:
  // `local`: this node as placement sees it (its total); `available`: its free resources.
  GcsCalls(gcs::GcsClient& gcs, std::string node_id, const scheduler::Placement& local,
           const scheduler::ResourceSet& available, std::function<void()> sync_bundles)
      : gcs_(gcs),
        node_id_(std::move(node_id)),
        local_(local),
        available_(available),
        sync_bundles_(std::move(sync_bundles)) {}

  // Whether call `op` is one of these.
  static bool Handles(const std::string& op);
  // The reply's body to call `op` with `body` (msgpack, as api.h's callers pack it).
  Result<std::string> Answer(const std::string& op, const std::string& body);

 private:
  // One call: its reply's body to `body`.
  using Handler = Result<std::string> (GcsCalls::*)(const std::string& body);
  static const std::map<std::string, Handler>& Ops();  // by op name

  Result<std::string> RegisterActorName(const std::string& body);
  Result<std::string> ShipBlob(const std::string& body);
  Result<std::string> GetActor(const std::string& body);
  Result<std::string> Nodes(const std::string& body);
  Result<std::string> ClusterResources(const std::string& body);
  Result<std::string> AvailableResources(const std::string& body);
  Result<std::string> GetNamespace(const std::string& body);
  Result<std::string> WebuiUrl(const std::string& body);
  Result<std::string> CreatePlacementGroup(const std::string& body);
  Result<std::string> RemovePlacementGroup(const std::string& body);
  Result<std::string> GetPlacementGroup(const std::string& body);
  Result<std::string> PlacementGroups(const std::string& body);
  // The live nodes' total (or free) resources; this node's as the raylet sees them.
  Result<std::string> SumResources(bool total);

  gcs::GcsClient& gcs_;
  std::string node_id_;
  const scheduler::Placement& local_;
  const scheduler::ResourceSet& available_;
  std::function<void()> sync_bundles_;
};

}  // namespace ray::raylet
