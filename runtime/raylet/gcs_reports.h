#pragma once
// What this node tells the GCS on its own schedule, with the raylet's periodic turn:
//   - its heartbeat: its free resources and the work waiting for them (the autoscaler
//     reads both). A GCS that does not know the node (a GCS started on empty tables)
//     is sent the node's registration again; one that started since the last answer
//     (a restart: its write-behind buffer may have died with the one before) is
//     reported, for the raylet to report its objects again;
//   - the objects stored here, for the GCS's object directory (in bulk);
//   - the actors hosted here, ALIVE or DEAD: in bulk, or at once where another node
//     may look one up or its name must be free again.
// What the GCS cannot take while it does not answer (Unavailable) is kept and sent
// with a later turn; other failures are logged and dropped.
//
// The raylet owns one (not thread-safe); it writes through a gcs::GcsClient, whose
// calls wait at most for its timeout.

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/gcs/gcs_client.h"
#include "runtime/ids/ids.h"
#include "runtime/serialization/protocol.h"

namespace ray::raylet {

class GcsReports {
 public:
  // `gcs` outlives this. `self`: this node's id (binary).
  GcsReports(gcs::GcsClient& gcs, std::string self, int64_t heartbeat_ms)
      : gcs_(gcs), self_(std::move(self)), heartbeat_ms_(heartbeat_ms) {}

  // --- the heartbeat
  bool HeartbeatDue(int64_t now_ms) const { return now_ms >= next_heartbeat_ms_; }
  // The next turn sends it, whenever the last one went (the GCS is back: it must not
  // take this node for dead).
  void HeartbeatSoon() { next_heartbeat_ms_ = 0; }
  enum class Beat {
    kSent,
    kFailed,        // logged, once while it keeps failing
    kSentToNewGcs,  // a GCS server started since the last answer
  };
  // Sends the heartbeat at `now_ms`: `available` and `load` as they are now. A GCS
  // that answers "unknown node" is sent `info()` (the node registers again).
  Beat Heartbeat(int64_t now_ms, const std::map<std::string, double>& available,
                 const std::vector<protocol::ResourceDemand>& load,
                 const std::function<protocol::NodeInfo()>& info);
  // The GCS does not answer (its watch says so): until a heartbeat gets through,
  // failing() is true.
  void GcsDown() { failing_ = true; }
  // Whether the last heartbeat failed or the GCS is down: calls that would each wait
  // for their timeout are better not made.
  bool failing() const { return failing_; }

  // --- the object directory
  // Object `id` (`size` bytes) is stored here: reported with the next SendObjects.
  void ObjectStored(const ObjectId& id, uint64_t size) {
    objects_.push_back(gcs::ObjectLocation{id.Binary(), self_, size});
  }
  void SendObjects();

  // --- actors
  // Actor `id` is ALIVE here, or DEAD. `at_once`: sent now (the records waiting first:
  // they are older); else with the next SendActors.
  void ActorState(const ActorId& id, bool alive, bool at_once);
  void SendActors();

 private:
  gcs::GcsClient& gcs_;
  const std::string self_;
  const int64_t heartbeat_ms_;
  int64_t next_heartbeat_ms_ = 0;
  bool failing_ = false;
  int64_t gcs_starts_seen_ = 0;  // GcsClient::gcs_starts at the last heartbeat answered
  std::vector<gcs::ObjectLocation> objects_;
  std::vector<std::tuple<std::string, std::string, bool>> actors_;  // (id, node, alive)
};

}  // namespace ray::raylet
