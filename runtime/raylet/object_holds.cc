#include "runtime/raylet/object_holds.h"

namespace ray::raylet {

bool ObjectHolds::Add(const ObjectId& id, const std::string& holder, bool owner_elsewhere) {
  auto [it, first] = objects_.try_emplace(id);
  if (first) it->second.owner_released = owner_elsewhere;
  ++it->second.by[holder];
  ++holders_[holder][id];
  return first;
}

void ObjectHolds::Remove(const ObjectId& id, const std::string& holder,
                         std::vector<ObjectId>& freed) {
  auto h = holders_.find(holder);
  if (h == holders_.end()) return;
  auto held = h->second.find(id);
  if (held == h->second.end()) return;
  if (--held->second <= 0) h->second.erase(held);
  if (h->second.empty()) holders_.erase(h);
  Drop(id, holder, 1, freed);
}

void ObjectHolds::RemoveHolder(const std::string& holder, std::vector<ObjectId>& freed) {
  auto h = holders_.find(holder);
  if (h == holders_.end()) return;
  auto held = std::move(h->second);
  holders_.erase(h);
  for (const auto& [id, n] : held) Drop(id, holder, n, freed);
}

void ObjectHolds::Drop(const ObjectId& id, const std::string& holder, int n,
                       std::vector<ObjectId>& freed) {
  auto it = objects_.find(id);
  if (it == objects_.end()) return;
  auto by = it->second.by.find(holder);
  if (by == it->second.by.end()) return;
  by->second -= n;
  if (by->second <= 0) it->second.by.erase(by);
  if (!it->second.by.empty()) return;
  if (it->second.owner_released) freed.push_back(id);
  objects_.erase(it);  // (not released yet: the owner's free finds it unheld)
}

bool ObjectHolds::OwnerReleased(const ObjectId& id) {
  auto it = objects_.find(id);
  if (it == objects_.end()) return true;
  it->second.owner_released = true;
  return false;
}

void ObjectHolds::EraseJob(const JobId& job_id) {
  auto of_job = [&](const ObjectId& id) { return TaskJob(id.Task()) == job_id; };
  for (auto it = objects_.begin(); it != objects_.end();) {
    if (!of_job(it->first)) {
      ++it;
      continue;
    }
    for (const auto& [holder, n] : it->second.by) {
      auto h = holders_.find(holder);
      if (h == holders_.end()) continue;
      h->second.erase(it->first);
      if (h->second.empty()) holders_.erase(h);
    }
    it = objects_.erase(it);
  }
}

}  // namespace ray::raylet
