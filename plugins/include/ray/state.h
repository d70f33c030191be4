#pragma once
// The cluster as a task sees it (Ray's ray.nodes(), ray.cluster_resources(), ...):
// the node it runs on, every node, total and available resources, the GPUs it holds,
// and ray::Profile spans for the timeline. Every call but Profile needs an attached
// runtime (ray/context.h) and throws RayException otherwise; answers are snapshots,
// current for the calling node and as of the last heartbeat for the others.

#include <msgpack.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "ray/abi.h"
#include "ray/context.h"
#include "ray/wire.h"

namespace ray {

// The id (hex) of the node this code runs on.
inline std::string GetNodeId() {
  const auto& api = internal::CheckedApi();
  RayObject reply{};
  if (api.call(api.ctx, "node_id", "", 0, &reply) != 0) {
    internal::ThrowRuntimeError("cannot get the node id");
  }
  internal::Released hold(reply);
  return std::string(reply.data, reply.size);
}

// Every node the cluster has had, live or dead, in the order they joined (NodeInfo is
// in ray/wire.h: the runtime sends it). The calling node's resources are current;
// others' are as of their last heartbeat.
inline std::vector<NodeInfo> Nodes() { return internal::Call<std::vector<NodeInfo>>("nodes"); }

// The namespace of the calling job (RayConfig::ray_namespace, `ray run --namespace`;
// else an anonymous one of the job's own), from its driver, tasks and actors.
inline std::string GetNamespace() { return internal::Call<std::string>("get_namespace"); }

// The GPU ids the running task or actor holds ([] in the driver and for tasks that
// asked for no GPU): CUDA_VISIBLE_DEVICES is set to them while the task runs. Whole
// GPUs for the integer part of the request, a shared GPU for a fractional part.
inline std::vector<int> GetGpuIds() { return internal::Call<std::vector<int>>("gpu_ids"); }

// Records a span in the cluster's timeline (`ray timeline`) from its construction to
// its destruction, on the row of the worker (or driver) that made it:
//   { ray::Profile span("load data"); Load(); }
// Usable in tasks, actor methods and RAY_MAIN. Never throws: without a runtime, or if
// the span cannot be recorded, it is dropped. Times have millisecond resolution.
class Profile {
 public:
  explicit Profile(std::string name) : name_(std::move(name)), start_ms_(NowMs()) {}
  Profile(const Profile&) = delete;
  Profile& operator=(const Profile&) = delete;
  ~Profile() {
    const RayRuntimeApi* api = internal::Api();
    if (!api) return;
    try {
      std::string body = internal::Pack(std::make_tuple(name_, start_ms_, NowMs()));
      RayObject reply{};
      if (api->call(api->ctx, "profile_event", body.data(), body.size(), &reply) == 0) {
        api->release(api->ctx, &reply, 1);
      }
    } catch (...) {
    }
  }

 private:
  static int64_t NowMs() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  std::string name_;
  int64_t start_ms_;
};

// Every placement group of the cluster, removed ones included, in creation order
// (Ray's state API list_placement_groups): id, name, strategy, state, bundles, the
// node of each reserved bundle. (PlacementGroupInfo is in ray/wire.h.)
inline std::vector<PlacementGroupInfo> ListPlacementGroups() {
  return internal::Call<std::vector<PlacementGroupInfo>>("placement_groups");
}

// Total resources of the cluster's live nodes ({"CPU": 8, "GPU": 1, ...}).
inline std::map<std::string, double> ClusterResources() {
  return internal::Call<std::map<std::string, double>>("cluster_resources");
}
// Whether the calling node's object store holds the object with id `object_id` (an
// ObjectRef's Binary()) now: false once it was freed, when every ref to it anywhere
// was dropped. Like a row of Ray's `ray memory`; for tests and debugging.
inline bool ObjectInLocalStore(const std::string& object_id) {
  return internal::Call<bool>("object_stored", object_id);
}
// The URL of the cluster's web dashboard (Ray's ray.get_webui_url()), e.g.
// "http://127.0.0.1:8265", without the token (log in with the cluster token); "" when
// the cluster runs none (`ray start --head --include-webui false`, clusters that
// ray::Init or `ray run` start).
inline std::string GetWebuiUrl() { return internal::Call<std::string>("webui_url"); }

// Resources not currently held by tasks or actors.
inline std::map<std::string, double> AvailableResources() {
  return internal::Call<std::map<std::string, double>>("available_resources");
}

}  // namespace ray
