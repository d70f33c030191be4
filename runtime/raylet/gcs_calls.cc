#include "runtime/raylet/gcs_calls.h"

#include <ray/wire.h>

#include <map>
#include <tuple>
#include <vector>

#include "runtime/base/hex.h"
#include "runtime/gcs/gcs_records.h"
#include "runtime/serialization/protocol.h"

namespace ray::raylet {

namespace ri = ray::internal;

namespace {

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

using Strings3 = std::tuple<std::string, std::string, std::string>;

const std::map<std::string, GcsCalls::Handler>& GcsCalls::Ops() {
  static const std::map<std::string, Handler> ops{
      {"register_actor_name", &GcsCalls::RegisterActorName},
      {"ship_blob", &GcsCalls::ShipBlob},
      {"get_actor", &GcsCalls::GetActor},
      {"nodes", &GcsCalls::Nodes},
      {"cluster_resources", &GcsCalls::ClusterResources},
      {"available_resources", &GcsCalls::AvailableResources},
      {"get_namespace", &GcsCalls::GetNamespace},
      {"webui_url", &GcsCalls::WebuiUrl},
      {"create_placement_group", &GcsCalls::CreatePlacementGroup},
      {"remove_placement_group", &GcsCalls::RemovePlacementGroup},
      {"get_placement_group", &GcsCalls::GetPlacementGroup},
      {"placement_groups", &GcsCalls::PlacementGroups},
  };
  return ops;
}

bool GcsCalls::Handles(const std::string& op) { return Ops().count(op) > 0; }

Result<std::string> GcsCalls::Answer(const std::string& op, const std::string& body) {
  auto it = Ops().find(op);
  if (it == Ops().end()) return Status::InvalidArgument("unknown operation '" + op + "'");
  return (this->*it->second)(body);
}

Result<std::string> GcsCalls::RegisterActorName(const std::string& body) {
  // body: msgpack [name, actor_id, ray_namespace ("": the actor's job's)]
  RAY_ASSIGN_OR_RETURN(auto args, protocol::DecodeBody<Strings3>(body, "register_actor_name"));
  RAY_RETURN_IF_ERROR(
      gcs_.RegisterNamedActor(std::get<0>(args), std::get<1>(args), node_id_, std::get<2>(args)));
  return std::string();
}

Result<std::string> GcsCalls::ShipBlob(const std::string& body) {
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

Result<std::string> GcsCalls::GetActor(const std::string& body) {
  // body: msgpack [name, ray_namespace, job_id] (an empty namespace: the job's)
  RAY_ASSIGN_OR_RETURN(auto args, protocol::DecodeBody<Strings3>(body, "get_actor"));
  return gcs_.LookupNamedActor(std::get<0>(args), std::get<1>(args), std::get<2>(args));
}

Result<std::string> GcsCalls::GetNamespace(const std::string& body) {
  // body: the caller's job id. Its namespace (ray::GetNamespace).
  RAY_ASSIGN_OR_RETURN(std::string ns, gcs_.Call("get_namespace", body));
  return ri::Pack(ns);
}

Result<std::string> GcsCalls::WebuiUrl(const std::string&) {
  // The dashboard's URL as it last reported it to the GCS ("": none running).
  RAY_ASSIGN_OR_RETURN(std::string url, gcs_.Call("get_webui_url", ""));
  return ri::Pack(url);
}

Result<std::string> GcsCalls::Nodes(const std::string&) {
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

Result<std::string> GcsCalls::SumResources(bool total) {
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

Result<std::string> GcsCalls::ClusterResources(const std::string&) { return SumResources(true); }

Result<std::string> GcsCalls::AvailableResources(const std::string&) { return SumResources(false); }

Result<std::string> GcsCalls::CreatePlacementGroup(const std::string& body) {
  RAY_ASSIGN_OR_RETURN(std::string reply, gcs_.Call("create_placement_group", body));
  RAY_ASSIGN_OR_RETURN(auto pg,
                       protocol::DecodeBody<gcs::PlacementGroupRecord>(reply, "placement group"));
  sync_bundles_();  // some of it may be for this node
  return ri::Pack(ToInfo(pg));
}

Result<std::string> GcsCalls::RemovePlacementGroup(const std::string& body) {
  RAY_ASSIGN_OR_RETURN(auto id, protocol::DecodeBody<std::string>(body, "placement group id"));
  RAY_RETURN_IF_ERROR(gcs_.Call("remove_placement_group", id).status());
  sync_bundles_();  // released here at once; other nodes with their next heartbeat
  return ri::Pack(true);
}

Result<std::string> GcsCalls::GetPlacementGroup(const std::string& body) {
  auto found = gcs_.Call("get_placement_group", body);
  // None: an empty handle, as Ray's GetPlacementGroup gives.
  if (found.status().code() == StatusCode::kNotFound) return ri::Pack(ray::PlacementGroupInfo{});
  RAY_ASSIGN_OR_RETURN(std::string reply, std::move(found));
  RAY_ASSIGN_OR_RETURN(auto pg,
                       protocol::DecodeBody<gcs::PlacementGroupRecord>(reply, "placement group"));
  return ri::Pack(ToInfo(pg));
}

Result<std::string> GcsCalls::PlacementGroups(const std::string&) {
  RAY_ASSIGN_OR_RETURN(std::string reply, gcs_.Call("get_placement_groups", ""));
  RAY_ASSIGN_OR_RETURN(auto groups, protocol::DecodeBody<std::vector<gcs::PlacementGroupRecord>>(
                                        reply, "placement groups"));
  std::vector<ray::PlacementGroupInfo> out;
  for (const auto& pg : groups) out.push_back(ToInfo(pg));
  return ri::Pack(out);
}

}  // namespace ray::raylet
