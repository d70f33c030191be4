#pragma once
// The runtime inside a driver or worker process: a connection to the node's raylet
// through which tasks are submitted and objects are put, fetched and waited for.
// It is what a plugin's RayRuntimeApi calls into (see runtime_api.h).
//
// Not thread-safe: one CoreClient per process, used from one thread. While a call
// waits for its reply, frames meant for later (tasks for this worker, log lines for
// this driver) are kept or printed, never lost.

#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/api/object_cache.h"
#include "runtime/base/status.h"
#include "runtime/ids/ids.h"
#include "runtime/object_store/object_store.h"
#include "runtime/serialization/protocol.h"
#include "runtime/transport/transport.h"

namespace ray::core {

// A fetched object's bytes and what keeps them alive (a heap copy or a mapping).
struct Fetched {
  protocol::ObjectState state = protocol::ObjectState::kMissing;
  const char* data = nullptr;
  size_t size = 0;
  std::shared_ptr<const void> keep;
};

class CoreClient {
 public:
  // Connects and registers. Drivers give their job id; workers their worker id
  // (the identity the raylet started them with).
  static Result<std::unique_ptr<CoreClient>> Connect(const std::string& raylet_endpoint,
                                                     bool is_driver, const JobId& job,
                                                     const std::string& worker_id);
  ~CoreClient();

  // Submits a plugin's TaskRequest (msgpack) for the plugin with content hash
  // `plugin`; returns the ids of the task's results.
  Result<std::vector<ObjectId>> Submit(const std::string& plugin, std::string_view request);
  Result<ObjectId> Put(std::string_view value) { return Put(std::vector<std::string_view>{value}); }
  // Put of the concatenation of `parts` (copied once).
  Result<ObjectId> Put(const std::vector<std::string_view>& parts);
  // Objects not ready before the timeout (timeout_ms >= 0) come back kMissing.
  Result<std::vector<Fetched>> Get(const std::vector<ObjectId>& ids, int64_t timeout_ms);
  Result<std::vector<bool>> Wait(const std::vector<ObjectId>& ids, size_t num,
                                 int64_t timeout_ms);
  // Named raylet operations (named actors, cluster resources).
  Result<std::string> Call(const std::string& op, const std::string& body);

  // Worker side. The next task to run (nullopt: the raylet asked us to exit).
  std::optional<protocol::ExecuteTask> NextTask();
  void SendTaskDone(const protocol::TaskDone& done);
  // Task whose puts and submissions follow (workers: the running task).
  void SetCurrentTask(const TaskId& task, const JobId& job);
  // Turns bytes into a payload: inline if small, else a shared-memory segment.
  Result<protocol::ObjectPayload> MakePayload(const ObjectId& id, std::string_view bytes);
  // Reads a payload as delivered by the raylet (maps shared memory).
  Result<Fetched> Materialize(const protocol::ObjectPayload& p);

  // Reference counting of ObjectRefs (see RayRuntimeApi::ref_delta). Safe from any
  // thread; frees are sent from the client's own thread, before its next blocking
  // call, and only for objects still unreferenced then.
  void RefDelta(const ObjectId& id, int32_t delta);
  void RefEscaped(const ObjectId& id);

  // Drivers: says goodbye so the raylet frees the job's actors and objects.
  void Disconnect();

  const protocol::RegisterReply& node() const { return node_; }
  const JobId& job() const { return job_; }

 private:
  CoreClient() = default;
  // Sends a request and waits for the reply with its request id.
  Result<std::string> Roundtrip(protocol::MessageType type, const std::string& body,
                                protocol::MessageType reply_type);
  // The next frame from the raylet, batches taken apart (timeout_ms -1: wait forever).
  std::optional<std::string> Receive(int timeout_ms);
  // Handles a frame that is not the awaited reply.
  void Stash(std::string frame);
  // An object this process created: freed when its last ObjectRef here goes.
  void Own(const ObjectId& id);
  // A shared-memory segment holding the parts, for object `id`: a spare segment of
  // the same size if there is one, else a new one.
  Result<std::shared_ptr<object_store::WritableSegment>> WriteSegment(
      const ObjectId& id, const std::vector<std::string_view>& parts, size_t size);
  // Sends `frame`, in one message with the frees due: all of them if `all`, else
  // only once enough have gathered.
  void SendWithFrees(std::string frame, bool all);

  transport::Dealer* dealer_ = nullptr;
  std::unique_ptr<transport::Dealer> owned_;
  protocol::RegisterReply node_;
  bool is_driver_ = false;
  JobId job_;
  TaskId current_task_;
  uint32_t put_index_ = 0;
  uint64_t next_request_ = 1;
  struct Owned {
    int32_t refs = 0;
    bool escaped = false;  // its id left the process: kept until the job ends
  };
  std::mutex refs_mu_;  // guards refs_ and unreferenced_
  std::unordered_map<ObjectId, Owned, IdHash> refs_;
  std::vector<ObjectId> unreferenced_;  // owned objects whose count reached 0
  // Large objects this process put, still mapped for writing: its Gets read them
  // through this mapping, and once freed and no longer read, the segment becomes a
  // spare that a later Put of the same size fills again (no new pages to fault in).
  std::unordered_map<ObjectId, std::shared_ptr<object_store::WritableSegment>, IdHash> written_;
  std::vector<std::shared_ptr<object_store::WritableSegment>> spare_;
  size_t spare_bytes_ = 0;
  // Small objects put or fetched here: Get and Wait on them ask no one.
  ObjectCache cache_{20000, 16 << 20};
  std::deque<std::string> inbox_;          // the rest of a batch being read
  std::deque<protocol::ExecuteTask> pending_tasks_;  // received, not yet started
  bool exit_requested_ = false;
  bool disconnected_ = false;
};

}  // namespace ray::core
