#pragma once
// Tasks sent ahead to busy workers (scheduler/pipelining.h says which may go; the start
// gate, start_gate.h, how they are taken back). When every CPU is taken, tasks waiting
// in the ready queue go ahead to busy workers running their shape, round robin, to
// start there without a round trip through the raylet. They come back to the queue:
//   - when the worker's running task calls Get or Wait (it may wait for them);
//   - when a CPU frees up: the busiest worker's tasks not started yet, to start on an
//     idle worker there;
//   - when a node joins (they may spill to it).
//
// The raylet loop owns one (not thread-safe). It works on the raylet's clients, free
// resources and ready queue; it queues RevokeTasks in the raylet's outbox, and the
// raylet sends the tasks themselves (Node::send).

#include <cstdint>
#include <functional>
#include <utility>

#include "runtime/raylet/client_table.h"
#include "runtime/raylet/outbox.h"
#include "runtime/scheduler/local_task_queue.h"
#include "runtime/scheduler/resources.h"
#include "runtime/scheduler/task_durations.h"
#include "runtime/serialization/protocol.h"

namespace ray::raylet {

class TasksAhead {
 public:
  struct Node {
    ClientTable& clients;
    scheduler::LocalTaskQueue& ready;
    const ResourceSet& available;  // the node's free resources
    Outbox& outbox;
    // Whether the cluster has other nodes, looked at afresh (one may have joined).
    std::function<bool()> multi_node;
    // Sends task `t` to busy worker `w`, to start after what it runs.
    std::function<void(Client& w, const TaskSpec& t)> send;
  };

  explicit TasksAhead(Node node) : node_(std::move(node)) {}

  // Sends waiting tasks that cannot start now ahead to busy workers, round robin.
  void Pipeline();
  // Worker `w`'s running task calls Get or Wait, and may wait for the tasks sent ahead
  // to it: they go back to the ready queue, and none go ahead to it until its running
  // task ends.
  void TakeBack(Client& w);
  // A CPU is free: the tasks sent ahead to the busy worker with the most of them that
  // fit what is free and did not start yet go back to the ready queue (to start on a
  // free worker), taken back through its start gate.
  void MoveToIdle();
  // Worker `w`'s running task ended: the first task sent ahead to it runs now (true),
  // on the same resources, dispatched at `now_ms`; false if none was.
  bool StartNext(Client& w, int64_t now_ms);
  // Normal task `t` ran for `ms` on a cluster's node: with other nodes, only functions
  // known to run short go ahead.
  void Ran(const TaskSpec& t, double ms);

 private:
  // Takes back from `w` the tasks ahead from index `first` on (none started): a
  // RevokeTasks naming them goes to `w`, and they go back to the ready queue.
  void Revoke(Client& w, size_t first);

  Node node_;
  scheduler::TaskDurations durations_;  // of the functions of the tasks run here
};

}  // namespace ray::raylet
