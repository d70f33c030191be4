#pragma once
// The tasks of one node whose arguments are ready and that wait for resources (and a
// worker) to start: grouped by resource shape, first in first out within a shape.
// Dispatch goes round robin over the shapes, one task of each per round, so that a
// burst of one shape does not starve the others.
//
// Pure: no sockets, no clock; the raylet owns one and drives it from its loop (not
// thread-safe). Tasks are moved in and out, never copied. Empty shapes stay until the
// next StartFitting, so callers may take tasks while walking the shapes.

#include <cstddef>
#include <deque>
#include <map>

#include "runtime/scheduler/resources.h"
#include "runtime/serialization/protocol.h"

namespace ray::scheduler {

using protocol::TaskSpec;

// The resources a task holds while it runs: what it asks for, and a normal task that
// names no CPU amount takes one CPU (unless in a placement group: renamed already).
ResourceSet ResourcesOf(const TaskSpec& t);
// The same for a lease of normal tasks asking for `resources` (no spec to build).
ResourceSet LeaseShapeOf(const std::map<std::string, double>& resources);

class LocalTaskQueue {
 public:
  // Adds a task at the tail of its shape's queue.
  void Push(const ResourceSet& shape, TaskSpec t);
  // Puts tasks back at the head of their shapes' queues, keeping their order (tasks
  // sent ahead to a worker and taken back).
  void Requeue(std::deque<TaskSpec> tasks);

  size_t num_ready() const { return num_ready_; }
  bool empty() const { return num_ready_ == 0; }
  // Whether tasks of `shape` wait here.
  bool Waiting(const ResourceSet& shape) const;

  // Starts tasks that fit now. Round robin over the shapes, the head of each shape
  // whose resources are in `available` and for which `fits(shape)` holds (e.g. the
  // GPU ids it needs are free) is offered to `start(shape, task)`. If `start` moves
  // the task out and returns true, the head leaves the queue and its shape is taken
  // from `available`; false (no worker for it) ends the dispatch with the task still
  // at the head. Returns how many started.
  template <typename Fits, typename Start>
  size_t StartFitting(ResourceSet& available, Fits&& fits, Start&& start);

  // How many tasks could start now if each had a worker: of each shape, as many as
  // `available` holds (a shape needing nothing: all of them), at most `cap` in all.
  size_t Runnable(const ResourceSet& available, size_t cap) const;

  // Offers, shape by shape and in order, each task whose shape `available` does not
  // hold now to `take(shape, task)`; tasks it moves out and returns true for leave the
  // queue (spilled to another node).
  template <typename Take>
  void TakeWaiting(const ResourceSet& available, Take&& take);

  // The head of `shape`'s queue, or null; and its removal (PopFront on an empty
  // shape is an error).
  TaskSpec* Front(const ResourceSet& shape);
  TaskSpec PopFront(const ResourceSet& shape);

  // Calls f(shape, count) for each shape with tasks waiting, in shape order.
  template <typename F>
  void ForEachShape(F&& f) const {
    for (const auto& [shape, queue] : queues_) {
      if (!queue.empty()) f(shape, queue.size());
    }
  }

  // Removes the tasks for which pred(task) holds; returns how many.
  template <typename Pred>
  size_t EraseIf(Pred&& pred);

 private:
  std::map<ResourceSet, std::deque<TaskSpec>> queues_;
  size_t num_ready_ = 0;
};

// ---------------------------------------------------------------------------

template <typename Fits, typename Start>
size_t LocalTaskQueue::StartFitting(ResourceSet& available, Fits&& fits, Start&& start) {
  size_t started = 0;
  bool progress = true;
  while (progress && num_ready_ > 0) {
    progress = false;
    for (auto it = queues_.begin(); it != queues_.end();) {
      const ResourceSet& shape = it->first;
      auto& queue = it->second;
      if (!queue.empty() && available.Contains(shape) && fits(shape)) {
        if (!start(shape, queue.front())) return started;
        queue.pop_front();
        --num_ready_;
        available.Subtract(shape);
        ++started;
        progress = true;
      }
      if (queue.empty()) {
        it = queues_.erase(it);
      } else {
        ++it;
      }
    }
  }
  return started;
}

template <typename Take>
void LocalTaskQueue::TakeWaiting(const ResourceSet& available, Take&& take) {
  for (auto& [shape, queue] : queues_) {
    if (available.Contains(shape)) continue;  // runs here soon enough
    for (auto it = queue.begin(); it != queue.end();) {
      if (take(shape, *it)) {
        it = queue.erase(it);
        --num_ready_;
      } else {
        ++it;
      }
    }
  }
}

template <typename Pred>
size_t LocalTaskQueue::EraseIf(Pred&& pred) {
  size_t erased = 0;
  for (auto& [shape, queue] : queues_) erased += std::erase_if(queue, pred);
  num_ready_ -= erased;
  return erased;
}

}  // namespace ray::scheduler
