#pragma once
// Tasks sent ahead: a task that cannot start because every CPU is taken would wait for
// a worker to finish anyway. Sent ahead to a busy worker running the same resource
// shape, it starts there without a round trip through the raylet. Which tasks and
// workers qualify is decided here; the raylet picks the workers round robin.
//
// Only plain tasks of the running task's job go ahead: GPUs and max_calls are per
// task, and a worker that called Get or Wait may be waiting for them (it gets none
// until its running task ends). With other nodes, a waiting task may spill to one with
// room instead, which a task sent ahead never does: there only tasks of functions
// known to run short go ahead (TaskDurations), after the raylet spilled what the
// other nodes had room for.

#include <cstddef>

#include "runtime/scheduler/resources.h"
#include "runtime/scheduler/task_durations.h"
#include "runtime/serialization/protocol.h"

namespace ray::scheduler {

// Tasks sent ahead per worker: enough to cover a round trip to the raylet with short
// tasks, few enough that a long task delays little behind it.
inline constexpr size_t kPipelineDepth = 16;

// Whether waiting tasks of `shape` may go ahead: they cannot start now and need no GPU.
bool ShapeMayGoAhead(const ResourceSet& shape, const ResourceSet& available);

// A busy worker as pipelining sees it (a view: the pointers are the caller's).
struct AheadWorker {
  const protocol::TaskSpec* running = nullptr;  // null: not running a task
  const ResourceSet* held = nullptr;  // what it holds (the running task's shape)
  size_t queued = 0;       // tasks sent ahead to it already
  bool blocked = false;    // in a Get, its CPU lent back
  bool no_pipelining = false;  // its running task called Get or Wait
};

// Whether `w` may take tasks of `shape` ahead at all (before looking at the tasks).
bool WorkerTakesAhead(const AheadWorker& w, const ResourceSet& shape);
// Whether task `t` may go ahead to `w`, which takes tasks ahead; `multi_node`: the
// cluster has other nodes, and then only tasks `durations` knows run short may
// (keyed by DurationKey).
bool TaskMayGoAhead(const protocol::TaskSpec& t, const AheadWorker& w, bool multi_node,
                    const TaskDurations& durations);
// The key of a task's function in a raylet's TaskDurations: its plugin and name.
std::string DurationKey(const protocol::TaskSpec& t);

}  // namespace ray::scheduler
