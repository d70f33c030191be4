#include "runtime/raylet/group_bundles.h"

#include <deque>
#include <map>
#include <utility>
#include <vector>

#include "runtime/base/hex.h"
#include "runtime/base/logging.h"
#include "runtime/raylet/group_tasks.h"
#include "runtime/scheduler/bundle_resources.h"

namespace ray::raylet {

using protocol::TaskSpec;
using scheduler::ResourceSet;
namespace ri = ray::internal;

void GroupBundles::Sync(bool again) {
  gcs::BundleSync sync;
  sync.node_id = d_.self;
  sync.total = d_.placement.local_total().ToDoubles();
  sync.available = d_.available.ToDoubles();
  sync.held = d_.bundles.Held();
  sync.refused = d_.bundles.refused();
  auto body = d_.gcs.Call("sync_bundles", ri::Pack(sync));
  if (!body.ok()) return;  // (an unknown node registers again with its next heartbeat)
  auto reply = protocol::DecodeBody<gcs::BundleSyncReply>(*body, "sync_bundles reply");
  if (!reply.ok()) {
    RAY_LOG_WARN("the GCS's sync_bundles reply: {}", reply.status().message());
    return;
  }
  d_.bundles.ClearRefused();
  std::map<Key, ResourceSet> wanted;
  for (const auto& b : reply->wanted) {
    wanted[{b.pg_id, b.index}] = ResourceSet::FromDoubles(b.resources);
  }
  bool changed = false;
  for (const auto& key : d_.bundles.NotIn(wanted)) {
    Release(key);
    changed = true;
  }
  for (const auto& [key, resources] : wanted) {
    if (d_.bundles.Holds(key)) continue;
    changed = true;
    ResourceSet total = d_.placement.local_total();
    if (!d_.bundles.Reserve(key, resources, total, d_.available)) continue;  // refused
    d_.placement.SetLocalTotal(std::move(total));
    RAY_LOG_INFO("reserved bundle {} of placement group {}: {}", key.second, key.first,
                 resources.ToString());
  }
  if (d_.bundles.NewVersion(reply->groups_version) || changed) {
    d_.infeasible.RetrySoon();  // tasks waiting for a group look again
  }
  if (changed && again) Sync(false);
}

void GroupBundles::Release(const Key& key) {
  if (!d_.bundles.Holds(key)) return;
  RAY_LOG_INFO("released bundle {} of placement group {}", key.second, key.first);
  std::deque<TaskSpec> again;  // placed once the bundle's resources are gone
  if (d_.bundles.LastOfGroup(key)) {
    // The group is gone from this node: what runs in it dies (Ray kills the actors
    // and fails the tasks of a removed group), what waits for it waits again.
    std::string why = "its placement group " + key.first + " was removed";
    std::vector<std::string> victims;
    for (const auto& [peer, c] : d_.clients.all()) {
      if (scheduler::UsesGroup(c.held, key.first)) victims.push_back(peer);
    }
    for (const auto& peer : victims) {
      Client* found = d_.clients.Find(peer);
      if (!found) continue;
      Client& c = *found;
      d_.available.Add(c.held);  // the worker's exit gives back nothing more
      c.held = ResourceSet();
      for (auto& t : c.queued) again.push_back(std::move(t));
      c.queued.clear();
      if (c.state == Client::kActor) {
        if (Actor* a = d_.actors.Find(c.actor_id)) {
          a->creation.max_restarts = a->restarts;  // no restart: the group is gone
          a->killed = true;
          d_.actor_died(c.actor_id, why);
        }
      }
      RAY_LOG_INFO("killing worker {} (pid {}): {}", ToHex(peer), c.pid, why);
      d_.kill_worker(peer);
    }
    d_.ready.EraseIf([&](const TaskSpec& t) {
      if (t.placement_group_id != key.first) return false;
      again.push_back(t);
      return true;
    });
  }
  ResourceSet total = d_.placement.local_total();
  d_.bundles.Release(key, total, d_.available);
  d_.placement.SetLocalTotal(std::move(total));
  for (auto& t : again) d_.place(std::move(t));
}

void GroupBundles::FailUnplaceable(const TaskSpec& t, const std::string& type,
                                   const std::string& why) {
  d_.fail(t, ri::kUnschedulable, type, type + ": " + why);
  if (t.kind != ri::kActorCreation) return;
  Actor& a = d_.actors.Entry(ActorOfCreation(t.task_id));
  a.creation = t;
  a.creation.max_restarts = a.restarts;
  d_.actor_died(ActorOfCreation(t.task_id), why);
  a.state = Actor::kDead;
  a.death_cause = why;
}

void GroupBundles::CheckWaiting() {
  if (!d_.infeasible.WaitsForGroups()) return;
  auto body = d_.gcs.Call("get_placement_groups", "");
  if (!body.ok()) return;
  auto groups = protocol::DecodeBody<std::vector<gcs::PlacementGroupRecord>>(*body, "groups");
  if (!groups.ok()) return;
  std::map<std::string, const gcs::PlacementGroupRecord*> by_id;
  for (const auto& pg : *groups) by_id[pg.pg_id] = &pg;
  // Those whose group is gone, or whose bundle cannot hold them, fail and go: after
  // the walk, since a failure stores errors that may place waiting work in the hold.
  std::vector<std::pair<TaskSpec, Unplaceable>> never_run;
  d_.infeasible.EraseIf([&](const TaskSpec& t) {
    if (t.placement_group_id.empty()) return false;
    auto it = by_id.find(t.placement_group_id);
    auto never = WhyNeverInGroup(t, it == by_id.end() ? nullptr : it->second);
    if (!never) return false;
    never_run.emplace_back(t, std::move(*never));
    return true;
  });
  for (const auto& [t, never] : never_run) FailUnplaceable(t, never.type, never.why);
}

}  // namespace ray::raylet
