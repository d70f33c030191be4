#include "runtime/scheduler/worker_starts.h"

#include <algorithm>
#include <cmath>

namespace ray::scheduler {

WorkerStarts::WorkerStarts(int max_workers, int prestart_workers, double cpus) {
  const size_t whole_cpus = static_cast<size_t>(std::max(0.0, std::floor(cpus)));
  max_workers_ = max_workers > 0 ? static_cast<size_t>(max_workers) : std::max<size_t>(16, 4 * whole_cpus);
  prestart_ = prestart_workers >= 0 ? static_cast<size_t>(prestart_workers) : whole_cpus;
}

size_t WorkerStarts::TaskWorkers(size_t processes, size_t actors) {
  return processes - std::min(actors, processes);
}

bool WorkerStarts::Full(size_t processes, size_t actors) const {
  return TaskWorkers(processes, actors) >= max_workers_;
}

size_t WorkerStarts::Allowed(size_t wanted, size_t processes, size_t actors, bool beyond_limit) const {
  if (beyond_limit) return wanted;
  const size_t task_workers = TaskWorkers(processes, actors);
  return task_workers >= max_workers_ ? 0 : std::min(wanted, max_workers_ - task_workers);
}

size_t WorkerStarts::ForRunnable(size_t runnable, size_t idle, size_t starting) {
  const size_t waiting = idle + starting;
  return runnable > waiting ? std::min(runnable - waiting, kAtOnce) : 0;
}

WorkerStarts::NoIdleWorker WorkerStarts::WhenNoIdleWorker(bool others_idle, size_t starting,
                                                          bool actor_creation) {
  if (starting > 0) return NoIdleWorker::kWait;
  if (others_idle) return NoIdleWorker::kStartForEnv;
  return actor_creation ? NoIdleWorker::kStartBeyondLimit : NoIdleWorker::kWait;
}

}  // namespace ray::scheduler
