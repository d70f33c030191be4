#include "runtime/raylet/remote_nodes.h"

#include <algorithm>

namespace ray::raylet {

void RemoteNodes::SetReturnsNode(const protocol::TaskSpec& t, const std::string& node) {
  for (uint32_t i = 1; i <= t.num_returns; ++i) {
    objects_[ObjectId::ForTaskReturn(t.task_id, i)] = node;
  }
}

void RemoteNodes::Forwarded(protocol::TaskSpec t, const std::string& node) {
  SetReturnsNode(t, node);
  if (t.kind == ray::internal::kNormalTask) lineage_[t.task_id] = {t, node};
  rebuilding_.erase(t.task_id);
  results_came_.erase(t.task_id);  // (sent again: not ended until a result comes again)
  const TaskId id = t.task_id;
  forwarded_[id] = {std::move(t), node};
}

void RemoteNodes::RanOn(protocol::TaskSpec t, const std::string& node) {
  SetReturnsNode(t, node);
  if (t.kind != ray::internal::kNormalTask) return;
  rebuilding_.erase(t.task_id);
  const TaskId id = t.task_id;
  lineage_[id] = {std::move(t), node};
}

std::optional<std::pair<protocol::TaskSpec, std::string>> RemoteNodes::FinishedOn(
    const TaskId& task_id, const std::string& node) {
  auto it = forwarded_.find(task_id);
  if (it == forwarded_.end()) return std::nullopt;
  SetReturnsNode(it->second.first, node);
  if (auto l = lineage_.find(task_id); l != lineage_.end()) l->second.second = node;
  auto sent = std::move(it->second);
  forwarded_.erase(it);
  results_came_.erase(task_id);
  return sent;
}

bool RemoteNodes::HasUnfinishedCall(const std::string& actor_id, const std::string& caller) const {
  return std::any_of(forwarded_.begin(), forwarded_.end(), [&](const auto& f) {
    const protocol::TaskSpec& t = f.second.first;
    return t.kind == ray::internal::kActorTask && t.actor_id == actor_id && t.caller == caller &&
           !results_came_.count(f.first);
  });
}

protocol::TaskSpec* RemoteNodes::LineageOf(const ObjectId& id) {
  auto it = lineage_.find(id.Task());
  return it == lineage_.end() ? nullptr : &it->second.first;
}

const std::string* RemoteNodes::LineageNode(const TaskId& task) const {
  auto it = lineage_.find(task);
  return it == lineage_.end() ? nullptr : &it->second.second;
}

void RemoteNodes::ForgetJob(const JobId& job_id) {
  auto of_job = [&](const TaskId& task) { return TaskJob(task) == job_id; };
  std::erase_if(lineage_, [&](const auto& e) { return of_job(e.first); });
  std::erase_if(rebuilding_, of_job);
  std::erase_if(results_came_, of_job);
  std::erase_if(objects_, [&](const auto& e) { return of_job(e.first.Task()); });
  std::erase_if(unlocated_, [&](const ObjectId& id) { return of_job(id.Task()); });
  std::erase_if(lost_at_, [&](const auto& e) { return of_job(e.first.Task()); });
  std::erase_if(served_, [&](const auto& e) { return of_job(e.first.Task()); });
}

const std::string* RemoteNodes::NodeOf(const ObjectId& id) const {
  auto it = objects_.find(id);
  return it == objects_.end() ? nullptr : &it->second;
}

std::vector<protocol::TaskSpec> RemoteNodes::TakeLostTasks(const std::string& node) {
  std::vector<protocol::TaskSpec> lost;
  for (auto it = forwarded_.begin(); it != forwarded_.end();) {
    if (it->second.second == node) {
      lost.push_back(std::move(it->second.first));
      results_came_.erase(it->first);
      it = forwarded_.erase(it);
    } else {
      ++it;
    }
  }
  for (const auto& t : lost) {
    for (uint32_t i = 1; i <= t.num_returns; ++i) {
      objects_.erase(ObjectId::ForTaskReturn(t.task_id, i));
    }
  }
  return lost;
}

std::vector<ObjectId> RemoteNodes::TakeObjectsOn(const std::string& node) {
  std::vector<ObjectId> lost;
  for (auto it = objects_.begin(); it != objects_.end();) {
    if (it->second == node) {
      lost.push_back(it->first);
      it = objects_.erase(it);
    } else {
      ++it;
    }
  }
  return lost;
}

std::optional<std::string> RemoteNodes::TakeOrigin(const TaskId& task_id) {
  auto it = origins_.find(task_id);
  if (it == origins_.end()) return std::nullopt;
  std::string origin = std::move(it->second);
  origins_.erase(it);
  return origin;
}

}  // namespace ray::raylet
