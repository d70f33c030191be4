// Placement groups on this node: the bundles it reserves and releases as the GCS says
// (the GCS keeps the groups and decides where their bundles go; gcs_calls.h relays the
// API's calls), and the tasks and actors that wait for a group.

#include "runtime/raylet/raylet_impl.h"
#include "runtime/raylet/group_tasks.h"
#include "runtime/scheduler/bundle_resources.h"

namespace ray::raylet {

void Raylet::SyncBundles(bool again) {
  gcs::BundleSync sync;
  sync.node_id = node_id_.Binary();
  sync.total = placement_.local_total().ToDoubles();
  sync.available = available_.ToDoubles();
  sync.held = bundles_.Held();
  sync.refused = bundles_.refused();
  auto body = gcs_.Call("sync_bundles", ri::Pack(sync));
  if (!body.ok()) return;  // (an unknown node registers again with its next heartbeat)
  auto reply = protocol::DecodeBody<gcs::BundleSyncReply>(*body, "sync_bundles reply");
  if (!reply.ok()) {
    RAY_LOG_WARN("the GCS's sync_bundles reply: {}", reply.status().message());
    return;
  }
  bundles_.ClearRefused();
  std::map<BundleKey, ResourceSet> wanted;
  for (const auto& b : reply->wanted) {
    wanted[{b.pg_id, b.index}] = ResourceSet::FromDoubles(b.resources);
  }
  bool changed = false;
  for (const auto& key : bundles_.NotIn(wanted)) {
    ReleaseBundle(key);
    changed = true;
  }
  for (const auto& [key, resources] : wanted) {
    if (bundles_.Holds(key)) continue;
    changed = true;
    ResourceSet total = placement_.local_total();
    if (!bundles_.Reserve(key, resources, total, available_)) continue;  // refused
    placement_.SetLocalTotal(std::move(total));
    RAY_LOG_INFO("reserved bundle {} of placement group {}: {}", key.second, key.first,
                 resources.ToString());
  }
  if (bundles_.NewVersion(reply->groups_version) || changed) {
    infeasible_.RetrySoon();  // tasks waiting for a group look again
  }
  if (changed && again) SyncBundles(false);
}

void Raylet::ReleaseBundle(const BundleKey& key) {
  if (!bundles_.Holds(key)) return;
  RAY_LOG_INFO("released bundle {} of placement group {}", key.second, key.first);
  std::deque<TaskSpec> again;  // placed once the bundle's resources are gone
  if (bundles_.LastOfGroup(key)) {
    // The group is gone from this node: what runs in it dies (Ray kills the actors
    // and fails the tasks of a removed group), what waits for it waits again.
    std::string why = "its placement group " + key.first + " was removed";
    std::vector<std::string> victims;
    for (const auto& [peer, c] : clients_.all()) {
      if (scheduler::UsesGroup(c.held, key.first)) victims.push_back(peer);
    }
    for (const auto& peer : victims) {
      Client* found = clients_.Find(peer);
      if (!found) continue;
      Client& c = *found;
      available_.Add(c.held);  // the worker's exit gives back nothing more
      c.held = ResourceSet();
      for (auto& t : c.queued) again.push_back(std::move(t));
      c.queued.clear();
      if (c.state == Client::kActor) {
        if (Actor* a = actors_.Find(c.actor_id)) {
          a->creation.max_restarts = a->restarts;  // no restart: the group is gone
          a->killed = true;
          actor_host_.Died(c.actor_id, why);
        }
      }
      RAY_LOG_INFO("killing worker {} (pid {}): {}", Hex(peer), c.pid, why);
      pool_->Kill(peer);
    }
    ready_.EraseIf([&](const TaskSpec& t) {
      if (t.placement_group_id != key.first) return false;
      again.push_back(t);
      return true;
    });
  }
  ResourceSet total = placement_.local_total();
  bundles_.Release(key, total, available_);
  placement_.SetLocalTotal(std::move(total));
  for (auto& t : again) Place(std::move(t), /*may_forward=*/true);
}

void Raylet::FailUnplaceable(const TaskSpec& t, const std::string& type, const std::string& why) {
  FailTask(t, ri::kUnschedulable, type, type + ": " + why);
  if (t.kind != ri::kActorCreation) return;
  Actor& a = actors_.Entry(ActorOfCreation(t.task_id));
  a.creation = t;
  a.creation.max_restarts = a.restarts;
  actor_host_.Died(ActorOfCreation(t.task_id), why);
  a.state = Actor::kDead;
  a.death_cause = why;
}

void Raylet::CheckGroupTasks() {
  if (!infeasible_.WaitsForGroups()) return;
  auto body = gcs_.Call("get_placement_groups", "");
  if (!body.ok()) return;
  auto groups = protocol::DecodeBody<std::vector<gcs::PlacementGroupRecord>>(*body, "groups");
  if (!groups.ok()) return;
  std::map<std::string, const gcs::PlacementGroupRecord*> by_id;
  for (const auto& pg : *groups) by_id[pg.pg_id] = &pg;
  // Those whose group is gone, or whose bundle cannot hold them, fail and go.
  infeasible_.EraseIf([&](const TaskSpec& t) {
    if (t.placement_group_id.empty()) return false;
    auto it = by_id.find(t.placement_group_id);
    auto never = WhyNeverInGroup(t, it == by_id.end() ? nullptr : it->second);
    if (!never) return false;
    FailUnplaceable(t, never->type, never->why);
    return true;
  });
}

}  // namespace ray::raylet
