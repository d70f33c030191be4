#include "runtime/raylet/actor_directory.h"

namespace ray::raylet {

bool Actor::HasCallsFrom(const std::string& caller) const {
  auto mine = [&](const protocol::TaskSpec& t) { return t.caller == caller; };
  return std::any_of(queue.begin(), queue.end(), mine) ||
         std::any_of(inflight.begin(), inflight.end(), mine);
}

Actor::Lost Actor::Die(bool restart, const std::string& cause) {
  Lost lost;
  std::deque<protocol::TaskSpec> again;
  for (auto& t : inflight) {
    if (restart && protocol::TakeRetry(t)) {
      again.push_back(std::move(t));
    } else {
      lost.running.push_back(std::move(t));
    }
  }
  inflight.clear();
  queue.insert(queue.begin(), std::make_move_iterator(again.begin()),
               std::make_move_iterator(again.end()));
  worker.clear();
  if (head_waiter) head_waiter->done = true;
  head_waiter.reset();
  if (restart) {
    ++restarts;
    state = kRestarting;
    return lost;
  }
  state = kDead;
  if (!killed || death_cause.empty()) death_cause = cause;  // (a kill may have said why)
  lost.queued.assign(std::make_move_iterator(queue.begin()), std::make_move_iterator(queue.end()));
  queue.clear();
  return lost;
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
