#include "runtime/raylet/remote_nodes.h"

#include <algorithm>

namespace ray::raylet {

void RemoteNodes::SetReturnsNode(const protocol::TaskSpec& t, const std::string& node) {
  TaskId tid = TaskId::FromBinary(t.task_id);
  for (uint32_t i = 1; i <= t.num_returns; ++i) objects_[ObjectId::ForTaskReturn(tid, i)] = node;
}

void RemoteNodes::Forwarded(protocol::TaskSpec t, const std::string& node) {
  SetReturnsNode(t, node);
  if (t.kind == ray::internal::kNormalTask) lineage_[t.task_id] = {t, node};
  rebuilding_.erase(t.task_id);
  std::string id = t.task_id;
  forwarded_[std::move(id)] = {std::move(t), node};
}

void RemoteNodes::RanOn(protocol::TaskSpec t, const std::string& node) {
  SetReturnsNode(t, node);
  if (t.kind != ray::internal::kNormalTask) return;
  rebuilding_.erase(t.task_id);
  std::string id = t.task_id;
  lineage_[std::move(id)] = {std::move(t), node};
}

std::optional<std::pair<protocol::TaskSpec, std::string>> RemoteNodes::FinishedOn(
    const std::string& task_id, const std::string& node) {
  auto it = forwarded_.find(task_id);
  if (it == forwarded_.end()) return std::nullopt;
  SetReturnsNode(it->second.first, node);
  if (auto l = lineage_.find(task_id); l != lineage_.end()) l->second.second = node;
  auto sent = std::move(it->second);
  forwarded_.erase(it);
  return sent;
}

bool RemoteNodes::HasUnfinishedCall(const std::string& actor_id, const std::string& caller) const {
  return std::any_of(forwarded_.begin(), forwarded_.end(), [&](const auto& f) {
    const protocol::TaskSpec& t = f.second.first;
    return t.kind == ray::internal::kActorTask && t.actor_id == actor_id && t.caller == caller;
  });
}

protocol::TaskSpec* RemoteNodes::LineageOf(const ObjectId& id) {
  auto it = lineage_.find(id.Task().Binary());
  return it == lineage_.end() ? nullptr : &it->second.first;
}

const std::string* RemoteNodes::LineageNode(const TaskId& task) const {
  auto it = lineage_.find(task.Binary());
  return it == lineage_.end() ? nullptr : &it->second.second;
}

void RemoteNodes::ForgetJob(const JobId& job_id) {
  const std::string job = job_id.Binary();
  auto of_job = [&](const std::string& id) { return id.compare(0, job.size(), job) == 0; };
  std::erase_if(lineage_, [&](const auto& e) { return of_job(e.first); });
  std::erase_if(rebuilding_, of_job);
  std::erase_if(objects_, [&](const auto& e) { return of_job(e.first.Binary()); });
  std::erase_if(unlocated_, [&](const ObjectId& id) { return of_job(id.Binary()); });
  std::erase_if(lost_at_, [&](const auto& e) { return of_job(e.first.Binary()); });
  std::erase_if(served_, [&](const auto& e) { return of_job(e.first.Binary()); });
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
      it = forwarded_.erase(it);
    } else {
      ++it;
    }
  }
  for (const auto& t : lost) {
    TaskId tid = TaskId::FromBinary(t.task_id);
    for (uint32_t i = 1; i <= t.num_returns; ++i) objects_.erase(ObjectId::ForTaskReturn(tid, i));
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

std::optional<std::string> RemoteNodes::TakeOrigin(const std::string& task_id) {
  auto it = origins_.find(task_id);
  if (it == origins_.end()) return std::nullopt;
  std::string origin = std::move(it->second);
  origins_.erase(it);
  return origin;
}

}  // namespace ray::raylet
