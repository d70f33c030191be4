#include "runtime/raylet/gcs_reports.h"

#include <utility>

#include "runtime/base/logging.h"

namespace ray::raylet {

GcsReports::Beat GcsReports::Heartbeat(int64_t now_ms,
                                       const std::map<std::string, double>& available,
                                       const std::vector<protocol::ResourceDemand>& load,
                                       const std::function<protocol::NodeInfo()>& info) {
  next_heartbeat_ms_ = now_ms + heartbeat_ms_;
  Status st = gcs_.Heartbeat(self_, available, load);
  if (!st.ok() && st.message().find("unknown node") != std::string::npos) {
    st = gcs_.RegisterNode(info());
  }
  if (!st.ok()) {
    if (!failing_) RAY_LOG_WARN("heartbeat to the GCS failed: {}", st.message());
    failing_ = true;
    return Beat::kFailed;
  }
  failing_ = false;
  const int64_t seen = std::exchange(gcs_starts_seen_, gcs_.gcs_starts());
  return seen != 0 && seen != gcs_starts_seen_ ? Beat::kSentToNewGcs : Beat::kSent;
}

void GcsReports::SendObjects() {
  if (objects_.empty()) return;
  Status st = gcs_.AddObjects(objects_);
  if (st.code() == StatusCode::kUnavailable) return;  // sent with a later turn
  if (!st.ok()) RAY_LOG_WARN("cannot report object locations: {}", st.message());
  objects_.clear();
}

void GcsReports::ActorState(const ActorId& id, bool alive, bool at_once) {
  if (!at_once) {
    actors_.emplace_back(id.Binary(), self_, alive);
    return;
  }
  SendActors();
  Status st = alive ? gcs_.RegisterActor(id.Binary(), self_) : gcs_.RemoveActor(id.Binary());
  if (st.code() == StatusCode::kUnavailable) {
    actors_.emplace_back(id.Binary(), self_, alive);  // sent when the GCS is back
  } else if (!st.ok()) {
    RAY_LOG_WARN("cannot record actor {} in the GCS: {}", id.Hex(), st.message());
  }
}

void GcsReports::SendActors() {
  if (actors_.empty()) return;
  Status st = gcs_.RecordActors(actors_);
  if (st.code() == StatusCode::kUnavailable) return;  // sent with a later turn
  if (!st.ok())
    RAY_LOG_WARN("cannot record {} actors in the GCS: {}", actors_.size(), st.message());
  actors_.clear();
}

}  // namespace ray::raylet
