#pragma once
// The task a thread's puts and submissions belong to. A worker running several calls
// of a concurrent actor at once runs a different task on each of its threads, so each
// thread has its own: the task id its puts derive from (with their index) and the job
// its submissions belong to. A thread that never set one (a callback thread) gets a
// task id of its own, in the process's job (the last one set by any thread).
//
// Current() and Set() are called with the client's lock held (client_lock.h).

#include <cstdint>

#include "runtime/ids/ids.h"

namespace ray::core {

struct TaskContext {
  TaskId task;
  JobId job;
  uint32_t put_index = 0;  // of the last put
};

class TaskContexts {
 public:
  // The calling thread's.
  TaskContext& Current();
  // Sets the calling thread's; the process's job becomes `job`.
  void Set(const TaskId& task, const JobId& job);
  // The process's node: task ids made here carry it (see NewTaskId).
  void SetNode(const NodeId& node) { process_node_ = node; }
  const NodeId& node() const { return process_node_; }

 private:
  JobId process_job_;
  NodeId process_node_;
};

}  // namespace ray::core
