// The raylet's part of the state API: the direct calls its workers report (to the
// task reporter) and actor records for the GCS.

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

}  // namespace ray::raylet
