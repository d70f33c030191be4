// The raylet's part of the state API: the direct calls its workers report (to the
// task reporter), actor records for the GCS, and the node list for ray::Nodes.

#include "runtime/raylet/raylet_impl.h"

namespace ray::raylet {

void Raylet::HandleTaskEvents(Client& c, std::string_view body) {
  auto msg = DecodeFrom<protocol::TaskEvents>(c.peer, body, "TaskEvents");
  if (!msg) return;
  reporter_.RecordDirectCalls(c, *msg);
}

void Raylet::FlushActorRecords() {
  const auto& records = actors_.records();
  if (records.empty() || stop_->load()) return;
  Status st = gcs_.RecordActors(records);
  if (st.code() == StatusCode::kUnavailable) return;  // kept, and sent when the GCS is back
  if (!st.ok()) {
    RAY_LOG_WARN("cannot record {} actors in the GCS: {}", records.size(), st.message());
  }
  actors_.ClearRecords();
}

Result<std::string> Raylet::NodesReply() {
  RAY_ASSIGN_OR_RETURN(auto nodes, gcs_.GetNodes());
  std::vector<ray::NodeInfo> out;
  for (const auto& n : nodes) {
    ray::NodeInfo info;
    info.node_id = ToHex(n.node_id);
    info.address = n.address;
    info.alive = n.state == gcs::kAlive;
    bool self = n.node_id == node_id_.Binary();
    info.resources_total = self ? placement_.local_total().ToDoubles() : n.total;
    info.resources_available = self ? available_.ToDoubles() : n.available;
    if (!info.alive) info.resources_available.clear();
    out.push_back(std::move(info));
  }
  return ri::Pack(out);
}

}  // namespace ray::raylet
