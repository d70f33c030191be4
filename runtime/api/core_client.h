#pragma once
// The runtime inside a driver or worker process: what a plugin's RayRuntimeApi calls
// into (see runtime_api.h). A facade over parts with one role each, which do not call
// each other back (frames from the raylet reach them through the handlers they
// register on the connection):
//   raylet_connection.h  requests, replies, and frames dispatched by type
//   reference_counter.h  this process's ObjectRefs to the objects it created
//   object_client.h      puts, Gets, Waits, the values held here, frees
//   task_submitter.h     tasks through the raylet or straight to workers
// Workers add runtime/worker/task_receiver.h for the tasks they run.
//
// Thread-safe: one CoreClient per process, used from any thread. Each public method
// holds the client's lock (client_lock.h) while it runs; a blocking one (Get, Wait, a
// request awaiting its reply) lets other threads use the client while it waits, and
// the waiting threads share the sockets (one polls and handles frames for all).
// A worker's task receiver and runner get the parts they use once, at Connect
// (WorkerParts); those parts are not thread-safe: hold lock() while using them.
// While a call waits for its reply, frames meant for later (tasks for this worker, log
// lines for this driver, other threads' replies) are handled, never lost. Puts and
// submissions belong to the calling thread's task (SetCurrentTask; task_context.h).

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/api/client_lock.h"
#include "runtime/api/object_client.h"
#include "runtime/api/raylet_connection.h"
#include "runtime/api/reference_counter.h"
#include "runtime/api/task_context.h"
#include "runtime/api/task_submitter.h"
#include "runtime/base/status.h"
#include "runtime/ids/ids.h"

namespace ray::core {

// The parts a worker's task receiver and task runner use besides the facade: handed
// out once, by Connect; owned by the client (they live as long as it does).
struct WorkerParts {
  RayletConnection* raylet = nullptr;
  ObjectClient* objects = nullptr;
};

class CoreClient {
 public:
  // Connects and registers. Drivers give their job id; workers their worker id (the
  // identity the raylet started them with), their direct endpoint, and where to put
  // the parts their receiver and runner use.
  static Result<std::unique_ptr<CoreClient>> Connect(const std::string& raylet_endpoint,
                                                     bool is_driver, const JobId& job,
                                                     const std::string& worker_id,
                                                     const std::string& direct_endpoint = "",
                                                     WorkerParts* worker_parts = nullptr);
  ~CoreClient();

  // See TaskSubmitter::Submit.
  Result<std::vector<ObjectId>> Submit(const std::string& plugin, std::string_view request);
  // Put of the concatenation of `parts` (copied once; one part for a plain value).
  Result<ObjectId> Put(const std::vector<std::string_view>& parts);
  Result<std::vector<Fetched>> Get(const std::vector<ObjectId>& ids, int64_t timeout_ms);
  Result<std::vector<bool>> Wait(const std::vector<ObjectId>& ids, size_t num, int64_t timeout_ms);
  // Named raylet operations (named actors, cluster resources, profile events).
  Result<std::string> Call(const std::string& op, const std::string& body);
  // Reference counting of ObjectRefs (see RayRuntimeApi::ref_delta). Safe from any
  // thread; frees are sent from the client's own thread, before its next blocking
  // call, and only for objects still unreferenced then.
  void RefDelta(const ObjectId& id, int32_t delta) { refs_.RefDelta(id, delta); }
  void RefEscaped(const ObjectId& id) { refs_.RefEscaped(id); }
  // Task whose puts and submissions follow on the calling thread (workers: the task
  // it runs).
  void SetCurrentTask(const TaskId& task, const JobId& job);
  // What this process's submissions inherit unless they set their own (the runtime
  // environment, the placement group that captures them): the job's (drivers), the
  // running task's or hosted actor's (workers).
  void SetInherited(Inherited inherited) {
    submitter_->SetInherited(std::move(inherited));
  }
  // Drivers: says goodbye so the raylet frees the job's actors and objects.
  void Disconnect();

  const protocol::RegisterReply& node() const { return raylet_->node(); }
  // Held by every method; hold it to use the WorkerParts from several threads.
  ClientLock& lock() { return *lock_; }

 private:
  CoreClient() = default;
  static void PrintLogLines(protocol::LogLines lines);

  // Declared in the order they depend on each other (and are destroyed in reverse).
  std::unique_ptr<ClientLock> lock_ = std::make_unique<ClientLock>();
  TaskContexts contexts_;
  std::unique_ptr<RayletConnection> raylet_;
  ReferenceCounter refs_;
  std::unique_ptr<ObjectClient> objects_;
  std::unique_ptr<TaskSubmitter> submitter_;
  bool is_driver_ = false;
  bool disconnected_ = false;
};

}  // namespace ray::core
