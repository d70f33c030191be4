#include "runtime/scheduler/local_task_queue.h"

#include <utility>

namespace ray::scheduler {

ResourceSet LeaseShapeOf(const std::map<std::string, double>& resources) {
  if (resources.count("CPU")) return ResourceSet::FromDoubles(resources);
  auto r = resources;
  r["CPU"] = 1;
  return ResourceSet::FromDoubles(r);
}

ResourceSet ResourcesOf(const TaskSpec& t) {
  auto r = t.resources;
  // (A task in a placement group asks for its bundle's renamed resources, its default
  // CPU included: see bundle_resources.h.)
  if (t.kind == ray::internal::kNormalTask && !r.count("CPU") && t.placement_group_id.empty()) {
    r["CPU"] = 1;
  }
  return ResourceSet::FromDoubles(r);
}

void LocalTaskQueue::Push(const ResourceSet& shape, TaskSpec t) {
  queues_[shape].push_back(std::move(t));
  ++num_ready_;
}

void LocalTaskQueue::Requeue(std::deque<TaskSpec> tasks) {
  for (auto it = tasks.rbegin(); it != tasks.rend(); ++it) {
    queues_[ResourcesOf(*it)].push_front(std::move(*it));
    ++num_ready_;
  }
}

bool LocalTaskQueue::Waiting(const ResourceSet& shape) const {
  auto it = queues_.find(shape);
  return it != queues_.end() && !it->second.empty();
}

size_t LocalTaskQueue::Runnable(const ResourceSet& available, size_t cap) const {
  size_t runnable = 0;
  for (const auto& [shape, queue] : queues_) {
    ResourceSet free = available;
    for (size_t n = 0; n < queue.size() && runnable < cap && free.Contains(shape); ++n) {
      free.Subtract(shape);
      ++runnable;
    }
  }
  return runnable;
}

TaskSpec* LocalTaskQueue::Front(const ResourceSet& shape) {
  auto it = queues_.find(shape);
  return it == queues_.end() || it->second.empty() ? nullptr : &it->second.front();
}

TaskSpec LocalTaskQueue::PopFront(const ResourceSet& shape) {
  auto& queue = queues_.at(shape);
  TaskSpec t = std::move(queue.front());
  queue.pop_front();
  --num_ready_;
  return t;
}

}  // namespace ray::scheduler
