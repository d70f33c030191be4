#include "runtime/raylet/tasks_ahead.h"

#include <algorithm>
#include <deque>
#include <iterator>
#include <vector>

#include "runtime/scheduler/pipelining.h"

namespace ray::raylet {

namespace {

// A worker as scheduler/pipelining.h sees it.
scheduler::AheadWorker AheadOf(const Client& c) {
  return {c.running ? &*c.running : nullptr, &c.held, c.queued.size(), c.blocked, c.no_pipelining};
}

}  // namespace

void TasksAhead::Pipeline() {
  bool looked = false;
  bool multi_node = false;
  std::vector<Client*> busy;
  node_.ready.ForEachShape([&](const ResourceSet& need, size_t) {
    if (!scheduler::ShapeMayGoAhead(need, node_.available)) return;
    if (!looked) {
      looked = true;
      multi_node = node_.multi_node();
    }
    busy.clear();
    for (auto& [peer, c] : node_.clients.all()) {
      if (c.state == Client::kBusy && c.gate && !c.marker_due &&
          scheduler::WorkerTakesAhead(AheadOf(c), need)) {
        busy.push_back(&c);
      }
    }
    for (bool sent = true; sent;) {  // round robin
      sent = false;
      for (Client* w : busy) {
        TaskSpec* t = node_.ready.Front(need);
        if (!t) return;
        if (!scheduler::TaskMayGoAhead(*t, AheadOf(*w), multi_node, durations_)) continue;
        if (!w->Serves(t->runtime_env)) continue;
        node_.send(*w, *t);
        w->queued.push_back(node_.ready.PopFront(need));
        sent = true;
      }
    }
  });
}

void TasksAhead::TakeBack(Client& w) {
  if (w.is_driver || w.state != Client::kBusy) return;
  w.no_pipelining = true;
  // (After MoveToIdle closed its gate, the tasks left ahead are those that had started:
  // the Get may be an earlier one's, read late. None is taken back.)
  if (w.queued.empty() || w.marker_due) return;
  Revoke(w, 0);
}

void TasksAhead::MoveToIdle() {
  Client* busiest = nullptr;
  for (auto& [peer, w] : node_.clients.all()) {
    if (w.state != Client::kBusy || !w.gate || w.marker_due || w.queued.empty() ||
        !node_.available.Contains(w.held)) {
      continue;
    }
    if (w.gate->Starts() <= w.gate_base) continue;  // its running task has not started
    if (!busiest || w.queued.size() > busiest->queued.size()) busiest = &w;
  }
  if (!busiest) return;
  Client& w = *busiest;
  // Starts after gate_base: the running task, then the tasks ahead, in order. Only the
  // raylet closes the gate of a worker it sends tasks ahead to (it is in no lease).
  uint64_t starts = w.gate->Close();
  w.marker_due = true;
  size_t started_ahead = starts > w.gate_base + 1 ? starts - w.gate_base - 1 : 0;
  // The marker (the RevokeTasks): the worker drops the tasks it names (and any not
  // started) and reopens the gate.
  Revoke(w, std::min(started_ahead, w.queued.size()));
}

void TasksAhead::Revoke(Client& w, size_t first) {
  std::deque<TaskSpec> back(std::make_move_iterator(w.queued.begin() + first),
                            std::make_move_iterator(w.queued.end()));
  w.queued.erase(w.queued.begin() + first, w.queued.end());
  protocol::RevokeTasks revoke;
  for (const auto& t : back) revoke.task_ids.push_back(t.task_id);
  node_.outbox.Send(w.peer, protocol::MessageType::kRevokeTasks, 0, revoke);
  node_.ready.Requeue(std::move(back));
}

bool TasksAhead::StartNext(Client& w, int64_t now_ms) {
  if (w.queued.empty()) return false;
  w.running = std::move(w.queued.front());
  w.queued.pop_front();
  w.dispatched_ms = now_ms;
  return true;
}

void TasksAhead::Ran(const TaskSpec& t, double ms) {
  durations_.Record(scheduler::DurationKey(t), ms);
}

}  // namespace ray::raylet
