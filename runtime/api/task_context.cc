#include "runtime/api/task_context.h"

namespace ray::core {

namespace {
// The calling thread's context, and the TaskContexts it belongs to (a thread may
// outlive a client, and a test may make several).
struct ThreadContext {
  const TaskContexts* owner = nullptr;
  TaskContext context;
};
thread_local ThreadContext tls;
}  // namespace

TaskContext& TaskContexts::Current() {
  if (tls.owner != this) {
    tls.owner = this;
    tls.context = TaskContext{NewTaskId(process_job_, process_node_), process_job_, 0};
  }
  return tls.context;
}

void TaskContexts::Set(const TaskId& task, const JobId& job) {
  process_job_ = job;
  tls.owner = this;
  tls.context = TaskContext{task, job, 0};
}

}  // namespace ray::core
