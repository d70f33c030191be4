#include "runtime/raylet/actor_directory.h"

namespace ray::raylet {

bool Actor::HasCallsFrom(const std::string& caller) const {
  auto mine = [&](const protocol::TaskSpec& t) { return t.caller == caller; };
  return std::any_of(queue.begin(), queue.end(), mine) ||
         std::any_of(inflight.begin(), inflight.end(), mine);
}

Actor* ActorDirectory::Find(const ActorId& id) {
  auto it = actors_.find(id);
  return it == actors_.end() ? nullptr : &it->second;
}

const Actor* ActorDirectory::Find(const ActorId& id) const {
  auto it = actors_.find(id);
  return it == actors_.end() ? nullptr : &it->second;
}

bool ActorDirectory::Gone(const ActorId& id) const {
  const Actor* a = Find(id);
  return !a || a->state == Actor::kDead;
}

void ActorDirectory::EraseJob(const JobId& job_id) {
  std::erase_if(actors_, [&](const auto& a) {
    const Actor& actor = a.second;
    return actor.creation.job_id == job_id && (!actor.creation.detached || actor.state == Actor::kDead);
  });
}

void ActorDirectory::PruneOwned(std::vector<ActorId>& owned) const {
  std::erase_if(owned, [&](const ActorId& id) { return Gone(id); });
}

}  // namespace ray::raylet
