#include "runtime/raylet/gcs_calls.h"

#include <ray/wire.h>

#include <tuple>
#include <vector>

#include "runtime/base/hex.h"
#include "runtime/gcs/gcs_records.h"
#include "runtime/serialization/protocol.h"

namespace ray::raylet {

namespace ri = ray::internal;

namespace {

bool IsPlacementGroupOp(const std::string& op) {
  return op == "create_placement_group" || op == "remove_placement_group" ||
         op == "get_placement_group" || op == "placement_groups";
}

ray::PlacementGroupInfo ToInfo(const gcs::PlacementGroupRecord& r) {
  ray::PlacementGroupInfo info;
  info.id = r.pg_id;
  info.name = r.name;
  info.strategy = r.strategy;
  info.state = r.state;
  info.bundles = r.bundles;
  for (const auto& n : r.bundle_nodes) {
    // A bundle counts as on its node once the node holds it.
    size_t i = info.bundle_node_ids.size();
    bool held = i < r.reserved.size() && r.reserved[i];
    info.bundle_node_ids.push_back(held && !n.empty() ? ToHex(n) : "");
  }
  info.job_id = ToHex(r.job_id);
  info.created_ms = r.created_ms;
  info.detail = r.detail;
  return info;
}

}  // namespace

bool GcsCalls::Handles(const std::string& op) {
  return op == "register_actor_name" || op == "get_actor" || op == "nodes" || op == "ship_blob" ||
         op == "cluster_resources" || op == "available_resources" || op == "webui_url" ||
         op == "get_namespace" || IsPlacementGroupOp(op);
}

Result<std::string> GcsCalls::Answer(const std::string& op, const std::string& body) {
  using Strings3 = std::tuple<std::string, std::string, std::string>;
  if (op == "register_actor_name") {
    // body: msgpack [name, actor_id, ray_namespace ("": the actor's job's)]
    RAY_ASSIGN_OR_RETURN(auto args, protocol::DecodeBody<Strings3>(body, "register_actor_name"));
    RAY_RETURN_IF_ERROR(
        gcs_.RegisterNamedActor(std::get<0>(args), std::get<1>(args), node_id_, std::get<2>(args)));
    return std::string();
  }
  if (op == "ship_blob") {
    // body: msgpack [content hash, name, bytes]: a task's runtime_env working_dir or
    // plugin, stored in the GCS beside the plugins (runtime_env_ship.h).
    RAY_ASSIGN_OR_RETURN(auto args, protocol::DecodeBody<Strings3>(body, "ship_blob"));
    const auto& [hash, name, bytes] = args;
    if (ContentHash(bytes) != hash) {
      return Status::InvalidArgument("ship_blob: the bytes of " + name +
                                     " do not have the content hash given");
    }
    RAY_RETURN_IF_ERROR(gcs_.PutPlugin(hash, name, bytes));
    return std::string();
  }
  if (op == "get_actor") {
    // body: msgpack [name, ray_namespace, job_id] (an empty namespace: the job's)
    RAY_ASSIGN_OR_RETURN(auto args, protocol::DecodeBody<Strings3>(body, "get_actor"));
    return gcs_.LookupNamedActor(std::get<0>(args), std::get<1>(args), std::get<2>(args));
  }
  if (op == "nodes") return Nodes();
  if (op == "cluster_resources" || op == "available_resources") {
    return ClusterResources(op == "cluster_resources");
  }
  if (op == "get_namespace") {
    // body: the caller's job id. Its namespace (ray::GetNamespace).
    RAY_ASSIGN_OR_RETURN(std::string ns, gcs_.Call("get_namespace", body));
    return ri::Pack(ns);
  }
  if (op == "webui_url") {
    // The dashboard's URL as it last reported it to the GCS ("": none running).
    RAY_ASSIGN_OR_RETURN(std::string url, gcs_.Call("get_webui_url", ""));
    return ri::Pack(url);
  }
  if (IsPlacementGroupOp(op)) return PlacementGroupCall(op, body);
  return Status::InvalidArgument("unknown operation '" + op + "'");
}

Result<std::string> GcsCalls::Nodes() {
  // Cluster state for the API (ray::Nodes): every node the GCS knows, this one live.
  RAY_ASSIGN_OR_RETURN(auto nodes, gcs_.GetNodes());
  std::vector<ray::NodeInfo> out;
  for (const auto& n : nodes) {
    ray::NodeInfo info;
    info.node_id = ToHex(n.node_id);
    info.address = n.address;
    info.alive = n.state == gcs::kAlive;
    bool self = n.node_id == node_id_;
    info.resources_total = self ? local_.local_total().ToDoubles() : n.total;
    info.resources_available = self ? available_.ToDoubles() : n.available;
    if (!info.alive) info.resources_available.clear();
    out.push_back(std::move(info));
  }
  return ri::Pack(out);
}

Result<std::string> GcsCalls::ClusterResources(bool total) {
  RAY_ASSIGN_OR_RETURN(auto nodes, gcs_.GetNodes());
  scheduler::ResourceSet sum;
  for (const auto& n : nodes) {
    if (n.state != gcs::kAlive) continue;
    if (n.node_id == node_id_) {
      sum.Add(total ? local_.local_total() : available_);
    } else {
      sum.Add(scheduler::ResourceSet::FromDoubles(total ? n.total : n.available));
    }
  }
  return ri::Pack(sum.ToDoubles());
}

Result<std::string> GcsCalls::PlacementGroupCall(const std::string& op, const std::string& body) {
  if (op == "create_placement_group") {
    RAY_ASSIGN_OR_RETURN(std::string reply, gcs_.Call(op, body));
    RAY_ASSIGN_OR_RETURN(auto pg,
                         protocol::DecodeBody<gcs::PlacementGroupRecord>(reply, "placement group"));
    sync_bundles_();  // some of it may be for this node
    return ri::Pack(ToInfo(pg));
  }
  if (op == "remove_placement_group") {
    RAY_ASSIGN_OR_RETURN(auto id, protocol::DecodeBody<std::string>(body, "placement group id"));
    RAY_RETURN_IF_ERROR(gcs_.Call(op, id).status());
    sync_bundles_();  // released here at once; other nodes with their next heartbeat
    return ri::Pack(true);
  }
  if (op == "get_placement_group") {
    auto found = gcs_.Call(op, body);
    // None: an empty handle, as Ray's GetPlacementGroup gives.
    if (found.status().code() == StatusCode::kNotFound) return ri::Pack(ray::PlacementGroupInfo{});
    RAY_ASSIGN_OR_RETURN(std::string reply, std::move(found));
    RAY_ASSIGN_OR_RETURN(auto pg,
                         protocol::DecodeBody<gcs::PlacementGroupRecord>(reply, "placement group"));
    return ri::Pack(ToInfo(pg));
  }
  RAY_ASSIGN_OR_RETURN(std::string reply, gcs_.Call("get_placement_groups", ""));
  RAY_ASSIGN_OR_RETURN(auto groups, protocol::DecodeBody<std::vector<gcs::PlacementGroupRecord>>(
                                        reply, "placement groups"));
  std::vector<ray::PlacementGroupInfo> out;
  for (const auto& pg : groups) out.push_back(ToInfo(pg));
  return ri::Pack(out);
}

}  // namespace ray::raylet
