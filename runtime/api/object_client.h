#pragma once
// A process's objects: puts, Gets and Waits through the raylet, the values it holds
// itself (small objects it put or fetched, results of its direct calls), and the
// shared-memory segments it wrote. It also decides what the raylet must hear when
// this process lets objects go (TakeFrees), and hands the raylet the direct results
// whose ids escaped (PromoteEscaped).
//
// Not thread-safe: used with the client's lock held (client_lock.h).

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "runtime/api/direct_results.h"
#include "runtime/api/object_cache.h"
#include "runtime/api/raylet_connection.h"
#include "runtime/api/reference_counter.h"
#include "runtime/base/status.h"
#include "runtime/ids/ids.h"
#include "runtime/object_store/object_index.h"
#include "runtime/object_store/object_store.h"
#include "runtime/serialization/protocol.h"

namespace ray::core {

// A fetched object's bytes and what keeps them alive (a heap copy or a mapping).
struct Fetched {
  protocol::ObjectState state = protocol::ObjectState::kMissing;
  const char* data = nullptr;
  size_t size = 0;
  std::shared_ptr<const void> keep;
};

class ObjectClient {
 public:
  // Both outlive this. Frees ride along with the connection's frames from now on.
  ObjectClient(RayletConnection* raylet, ReferenceCounter* refs);
  ~ObjectClient();  // spare segments are removed

  // Put of the concatenation of `parts` (copied once) as object `id` (a put's id:
  // ObjectId::ForPut, of the putting thread's task; see task_context.h).
  Result<ObjectId> Put(const ObjectId& id, const std::vector<std::string_view>& parts);
  // Objects not ready before the timeout (timeout_ms >= 0) come back kMissing.
  // `from_node`: a node to pull those not on this node from first (GetRequest).
  Result<std::vector<Fetched>> Get(const std::vector<ObjectId>& ids, int64_t timeout_ms,
                                   const std::string& from_node = "");
  Result<std::vector<bool>> Wait(const std::vector<ObjectId>& ids, size_t num,
                                 int64_t timeout_ms);
  // Turns bytes into a payload: inline if small, else a shared-memory segment.
  Result<protocol::ObjectPayload> MakePayload(const ObjectId& id, std::string_view bytes);
  // Reads a payload as delivered by the raylet (maps shared memory).
  Result<Fetched> Materialize(const protocol::ObjectPayload& p);

  // Whether the object's value is here (cached, a direct result, or written here).
  bool Holds(const ObjectId& id) const;
  // The object as a direct call's argument: its value if here, else kMissing (the
  // worker fetches it).
  protocol::ObjectPayload ArgPayload(const ObjectId& id) const;
  // Results of this process's direct calls (see direct_results.h).
  DirectResults& direct() { return direct_; }
  // Direct results whose ids escaped go to the raylet: before anything that may carry
  // the ids is sent. Those still in flight go when they arrive (PromoteArrived), or,
  // with `wait_in_flight`, before this returns (with every earlier one in flight: a
  // worker about to answer, which may exit after). The raylet waits for them meanwhile.
  void PromoteEscaped(bool wait_in_flight);
  // Escaped direct results that arrived (or failed, or went to the raylet with their
  // call) go to the raylet now: after each answer or failure of a direct call.
  void PromoteArrived();
  // The FreeObjects frame due (see ReferenceCounter::TakeChanges), or "".
  std::string TakeFrees(bool all);
  // Workers answering a direct call whose results hold refs (`contained`): the results
  // go to the raylet with their refs, acknowledged, and stay in `returns` as kMissing
  // (the caller reads them from the raylet). Errors stay as they are.
  Status PutResults(std::vector<protocol::ObjectPayload>& returns,
                    const std::vector<ObjectId>& contained);
  // Tells the raylet this process's new borrows, and waits until it has heard them
  // (nothing if none are due).
  Status SyncBorrows();
  ReferenceCounter& refs() { return *refs_; }
  // Changes with every Get or Wait that asked the raylet (a caller blocked), or found
  // in the node's index what it would have asked it for: calls made before may have
  // ended since (TaskSubmitter asks for an actor's direct route again).
  uint64_t block_epoch() const { return block_epoch_; }

 private:
  // A value this process holds: cached, or a direct call's result.
  const ObjectCache::Entry* LocalValue(const ObjectId& id) const;
  // The node's object index (object_index.h), opened at first use; null if the
  // raylet has none.
  const object_store::ObjectIndexReader* Index();
  bool Indexed(const ObjectId& id);
  // The object from the node's index, cached here; nullopt if it is not indexed.
  std::optional<Fetched> FromIndex(const ObjectId& id);
  // A shared-memory segment holding the parts, for object `id`: a spare segment of
  // the same size if there is one, else a new one.
  Result<std::shared_ptr<object_store::WritableSegment>> WriteSegment(
      const ObjectId& id, const std::vector<std::string_view>& parts, size_t size);
  // Unmaps the oldest puts nothing here reads while they hold more than half the
  // store: the store cannot spill an object a process maps, so a process that puts
  // more than the store holds would be refused otherwise.
  void UnmapIdlePuts();

  RayletConnection* raylet_;
  ReferenceCounter* refs_;
  DirectResults direct_;
  // Escaped direct results still in flight (PromoteEscaped), those of them this
  // process let go of meanwhile, and frees of them due to the raylet (their call went
  // through it again).
  std::unordered_set<ObjectId, IdHash> escaped_in_flight_, freed_in_flight_;
  std::vector<ObjectId> late_frees_;
  // Sends the direct result `id` to the raylet, if it is held here.
  void SendPromoted(const ObjectId& id);
  uint64_t block_epoch_ = 0;
  // Small objects put or fetched here: Get and Wait on them ask no one.
  ObjectCache cache_{20000, 16 << 20};
  std::unique_ptr<object_store::ObjectIndexReader> index_;
  bool index_opened_ = false;
  // Objects the raylet said were ready, not fetched: Wait counts them without asking
  // again (a loop of Waits over results of tasks the raylet ran asks once per batch
  // that became ready, not once per Wait). Forgotten when their ref goes, or all at
  // once when there are too many (it only saves asking).
  std::unordered_set<ObjectId, IdHash> ready_in_store_;
  // Large objects this process put, still mapped for writing: its Gets read them
  // through this mapping, and once freed and no longer read, the segment becomes a
  // spare that a later Put of the same size fills again (no new pages to fault in).
  std::unordered_map<ObjectId, std::shared_ptr<object_store::WritableSegment>, IdHash> written_;
  std::deque<ObjectId> written_order_;  // oldest first (ids unmapped since are skipped)
  size_t written_bytes_ = 0;
  std::vector<std::shared_ptr<object_store::WritableSegment>> spare_;
  size_t spare_bytes_ = 0;
};

}  // namespace ray::core
