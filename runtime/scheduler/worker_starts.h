#pragma once
// Worker starts: how many worker processes the raylet starts, and when. This is the
// policy; the raylet starts the processes (WorkerPool) and counts them.
//
// The limit, max_workers (by default 4 per CPU, at least 16), is on the workers that
// serve tasks: an actor has a worker of its own however many there are, as in Ray.
// At start the raylet starts prestart_workers (by default one per CPU). While tasks
// the free resources fit wait for workers, it starts as many as they lack beyond the
// idle and starting ones, at most kAtOnce per dispatch round (a burst of tasks does
// not fork a crowd of processes at once; more start as these register).
//
// Pure: counts in, counts out.

#include <cstddef>

namespace ray::scheduler {

class WorkerStarts {
 public:
  static constexpr size_t kAtOnce = 4;

  // `max_workers`, `prestart_workers`: the raylet's options (max_workers <= 0 and
  // prestart_workers < 0 take the defaults above); `cpus`: the node's CPUs.
  WorkerStarts(int max_workers, int prestart_workers, double cpus);

  size_t max_workers() const { return max_workers_; }
  // Workers to start with the raylet.
  size_t prestart() const { return prestart_; }

  // Of `processes` worker processes, `actors` host an actor: the others serve tasks.
  static size_t TaskWorkers(size_t processes, size_t actors);
  // Whether the task workers reached max_workers (one must end before another starts).
  bool Full(size_t processes, size_t actors) const;
  // How many of `wanted` new workers may start now. `beyond_limit`: all of them (for
  // an actor creation no idle worker can take).
  size_t Allowed(size_t wanted, size_t processes, size_t actors, bool beyond_limit = false) const;
  // How many start for `runnable` tasks (those the free resources fit, see
  // LocalTaskQueue::Runnable) while `idle` workers wait and `starting` ones start.
  static size_t ForRunnable(size_t runnable, size_t idle, size_t starting);

  // A ready task found no idle worker that serves its runtime environment.
  enum class NoIdleWorker {
    kWait,              // a worker is starting, or (not an actor creation) none is idle:
                        // it waits (ForRunnable starts more)
    kStartForEnv,       // start one of its environment, ending an idle one if Full
    kStartBeyondLimit,  // an actor creation while every task worker is busy
  };
  static NoIdleWorker WhenNoIdleWorker(bool others_idle, size_t starting, bool actor_creation);

 private:
  size_t max_workers_;
  size_t prestart_;
};

}  // namespace ray::scheduler
