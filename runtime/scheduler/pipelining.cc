#include "runtime/scheduler/pipelining.h"

namespace ray::scheduler {

bool ShapeMayGoAhead(const ResourceSet& shape, const ResourceSet& available) {
  return !available.Contains(shape) && shape.Amount("GPU") <= 0;
}

bool WorkerTakesAhead(const AheadWorker& w, const ResourceSet& shape) {
  return w.running && !w.blocked && !w.no_pipelining && w.running->max_calls == 0 &&
         *w.held == shape && w.queued < kPipelineDepth;
}

bool TaskMayGoAhead(const protocol::TaskSpec& t, const AheadWorker& w, bool multi_node,
                    const TaskDurations& durations) {
  return w.queued < kPipelineDepth && t.max_calls == 0 &&
         t.kind == ray::internal::kNormalTask && t.job_id == w.running->job_id &&
         (!multi_node || durations.Short(DurationKey(t)));
}

std::string DurationKey(const protocol::TaskSpec& t) { return t.plugin + "/" + t.function; }

}  // namespace ray::scheduler
