#pragma once
// A worker's incoming tasks: those the raylet sends, and direct calls from callers
// (actor methods, and normal tasks from the caller the worker is leased to; see
// runtime/api/task_submitter.h), in the order they are to run. It answers each task
// where it came from, keeps the lease (returning it when idle, or when asked), and
// reports the direct calls it ran to the raylet in batches (the state API and the
// timeline show them).
//
// Not thread-safe: used with the client's lock held (the worker's thread takes tasks;
// a concurrent actor's threads answer theirs).

#include <deque>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/api/object_client.h"
#include "runtime/api/raylet_connection.h"
#include "runtime/base/status.h"
#include "runtime/serialization/protocol.h"
#include "runtime/serialization/running_task.h"
#include "runtime/serialization/start_gate.h"
#include "runtime/transport/transport.h"

namespace ray::worker {

// A task a worker received, and where its result goes: "" the raylet, else the caller
// that sent it directly (that caller's identity on the worker's direct socket).
struct IncomingTask {
  protocol::ExecuteTask task;
  std::string reply_to;
  int running_entry = -1;  // its entry in the running-task slot (direct calls)
};

class TaskReceiver {
 public:
  // Binds the worker's direct socket beside the raylet's. Done before the worker
  // registers: the registration names the endpoint().
  static Result<std::unique_ptr<TaskReceiver>> Bind(const std::string& raylet_endpoint,
                                                    const std::string& worker_id);
  ~TaskReceiver();  // removes the socket file and the running-task slot

  const std::string& endpoint() const { return endpoint_; }
  // Starts receiving through the registered connection (both outlive this).
  void Attach(core::RayletConnection* raylet, core::ObjectClient* objects);

  // The next task to run (nullopt: the raylet asked us to exit, or died).
  std::optional<IncomingTask> NextTask();
  // Reports a task's results to where the task came from. The refs they hold (ids
  // serialized into them) are held by the raylet before this process lets them go;
  // the borrows this process keeps reach the raylet before the caller hears.
  void SendTaskDone(const IncomingTask& task, protocol::TaskDone& done);

 private:
  TaskReceiver() = default;
  // When the raylet asks (kListenTcp: a caller on another node would call this
  // worker's actor directly): it listens on tcp on its node's address too, encrypted
  // (ZeroMQ CURVE with the cluster's keys, transport/curve.h, even on a loopback
  // address: only holders of the token call it), and tells the raylet. Logged, not
  // fatal, if it fails (those calls go through the raylets then).
  void ListenTcp();
  void OnRevokeTasks(const protocol::RevokeTasks& revoke);
  void OnLeaseGranted(const protocol::LeaseGranted& grant);
  void OnRevokeLease();
  void OnYieldLease();
  // Frames from direct callers.
  void OnDirectFrame(const std::string& caller, std::string_view frame);
  // Tasks from callers this worker is not (yet) leased to: the lease may be on its way.
  void CheckUnleased();
  void Bounce(const std::string& caller, const TaskId& task_id);
  // `sender` ("": the raylet) closed the start gate: its normal tasks not started are
  // dropped, until its marker comes (TakenBack, or the raylet's RevokeTasks).
  void DropTakenBack(const std::string& sender);
  void OnMarker(const std::string& sender);
  bool Dropped(const IncomingTask& task) const;
  // A direct call of the lease the worker is in now (one tagged with the lease it was
  // sent under, ExecuteTask::lease, runs in that lease only), or of a lease it ended
  // (bounced: its caller counts it as that lease's, and may take back the calls of
  // the next lease through the gate).
  bool InLease(const IncomingTask& task) const;
  bool LeaseOver(const IncomingTask& task) const;
  void ReturnLease();
  void FlushTaskEvents(bool force);

  core::RayletConnection* raylet_ = nullptr;
  core::ObjectClient* objects_ = nullptr;
  std::string worker_id_;
  transport::Router router_;
  std::string endpoint_;
  bool listening_tcp_ = false;  // ListenTcp ran
  std::unique_ptr<protocol::RunningTaskSlot> running_;  // the direct call it runs, for the raylet
  std::string running_path_;
  std::deque<IncomingTask> pending_;  // received, not yet started
  std::unique_ptr<protocol::StartGate> gate_;  // null: tasks are not taken back
  std::set<std::string> draining_;  // senders whose tasks are dropped until their marker
  bool exit_requested_ = false;
  std::string leased_to_;       // the caller this worker is leased to ("": none)
  std::string returned_to_;     // the caller whose lease it returned last
  bool lease_revoked_ = false;  // that caller is gone: return the lease when idle
  bool lease_yield_ = false;    // the raylet has tasks waiting: return it when idle
  int64_t lease_idle_ms_ = 0;   // the lease ends if no task comes by then
  struct Unleased {
    IncomingTask task;
    int64_t arrived_ms;
  };
  std::deque<Unleased> unleased_;
  // Direct calls this worker ran, reported to the raylet within kTaskEventsDelayMs; at
  // once for calls that ran kTaskEventsLongMs or more (the raylet may show them
  // RUNNING); and before the next call starts, when none waits behind it, once
  // kTaskEventsStaleMs old (the call may run long).
  static constexpr int64_t kTaskEventsDelayMs = 100;
  static constexpr int64_t kTaskEventsLongMs = 1;
  static constexpr int64_t kTaskEventsStaleMs = 20;
  static constexpr size_t kMaxTaskEvents = 1000;
  std::vector<protocol::TaskEventRecord> task_events_;
  int64_t task_events_due_ms_ = 0;
};

}  // namespace ray::worker
