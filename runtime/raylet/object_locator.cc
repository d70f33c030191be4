#include "runtime/raylet/object_locator.h"

#include <utility>

#include "runtime/base/hex.h"
#include "runtime/base/logging.h"
#include "runtime/scheduler/lost_objects.h"

namespace ray::raylet {

namespace ri = ray::internal;

void ObjectLocator::Locate(const ObjectId& id, const std::string& hint) {
  if (d_.objects.Ready(id) || d_.pulling(id)) return;
  std::string from;
  if (const std::string* known = d_.remote.NodeOf(id)) {
    from = *known;
  } else if (hint != d_.self) {
    from = hint;
  }
  if (!from.empty() && d_.pull(id, from)) return;
  // Produced here, or somewhere the GCS will know of; or on a node this one cannot
  // reach yet (its address not heard of: a node that just joined). LocateInBulk asks
  // the GCS and pulls it then.
  if (!from.empty() || d_.placement.MultiNode()) d_.remote.Unlocated(id);
}

void ObjectLocator::LocateInBulk() {
  std::vector<std::string> ids = d_.remote.ToLocate([&](const ObjectId& id) {
    return d_.objects.Ready(id) || d_.pulling(id) || !d_.objects.Awaited(id);
  });
  if (ids.empty()) return;
  auto where = d_.directory(ids);
  if (!where.ok()) return;
  std::vector<std::pair<ObjectId, std::string>> lost;  // and why
  for (size_t i = 0; i < ids.size() && i < where->size(); ++i) {
    ObjectId id = ObjectId::FromBinary(ids[i]);
    bool elsewhere = false;
    for (const auto& node : (*where)[i]) {
      if (node == d_.self || !d_.placement.Alive(node)) continue;
      if (d_.remote.WasLostAt(id, node)) continue;  // evicted there
      elsewhere = true;
      if (d_.pull(id, node)) d_.remote.Located(id);
      break;
    }
    if (elsewhere) continue;
    // (Listed on no node: maybe made but not reported yet. Listed on dead nodes or
    // this one only: its copies are gone.)
    if (auto why = NoCopyLeft(id, /*copies_gone=*/!(*where)[i].empty())) {
      lost.push_back({id, std::move(*why)});
    }
  }
  // (Stored after the walk: storing answers readers, which may locate more.)
  for (const auto& [id, why] : lost) {
    d_.remote.Located(id);
    d_.lost(id, why);
  }
}

bool ObjectLocator::LookElsewhere(const ObjectId& id, const std::string& from) {
  if (id.IsPut()) return false;
  auto owner = OwnerNode(id);
  bool elsewhere = d_.remote.LineageOf(id) || (owner && *owner != d_.self && *owner != from);
  if (!elsewhere) return false;
  d_.remote.LostAt(id, from);
  if (!d_.pulling(id)) d_.remote.Unlocated(id);
  return true;
}

void ObjectLocator::RecoverObjectsOf(const std::string& node) {
  std::vector<ObjectId> lost;
  for (const ObjectId& id : d_.remote.TakeObjectsOn(node)) {
    if (!d_.objects.Ready(id)) lost.push_back(id);  // (a copy here is as good)
  }
  if (lost.empty()) return;
  // Copies on live nodes are fetched from there when asked for. (The GCS forgets the
  // dead node's copies; if it does not answer, none are assumed.)
  std::vector<std::string> bins;
  for (const ObjectId& id : lost) bins.push_back(id.Binary());
  auto where = d_.directory(bins);
  scheduler::LostObjects nowhere;
  for (size_t i = 0; i < lost.size(); ++i) {
    const ObjectId& id = lost[i];
    if (where.ok() && i < where->size() && !(*where)[i].empty()) {
      if (d_.objects.Awaited(id)) d_.remote.Unlocated(id);
      continue;
    }
    nowhere.emplace_back(id, d_.remote.LineageOf(id));
  }
  // Lineage reconstruction: the tasks that made them run again (their arguments lost
  // with the node are made again the same way), as long as they have retries left.
  scheduler::DeadNodeRecovery r = scheduler::RecoverFromDeadNode(nowhere, node);
  for (const auto& [id, lineage] : r.run_again) {
    RunAgainToMake(id, "was lost with node " + ToHex(node), *d_.remote.LineageOf(id));
  }
  for (const auto& [id, why] : r.lost) d_.lost(id, why);
  RAY_LOG_WARN("node {} died with {} objects known here: {} made again, {} lost", ToHex(node),
               lost.size(), nowhere.size() - r.lost.size(), r.lost.size());
}

void ObjectLocator::RunAgain(protocol::TaskSpec t) {
  d_.remote.Rebuilding(t.task_id);
  d_.place(std::move(t));
}

void ObjectLocator::RunAgainToMake(const ObjectId& id, const std::string& why,
                                   protocol::TaskSpec& lineage) {
  RAY_LOG_INFO("object {} {}: running task {} ({}) again to make it", id.Hex(), why,
               lineage.task_id.Hex(), lineage.function);
  protocol::TakeRetry(lineage);  // (the policy checked that one is left)
  RunAgain(lineage);
}

std::optional<std::string> ObjectLocator::NoCopyLeft(const ObjectId& id, bool copies_gone) {
  scheduler::ObjectFacts facts;
  facts.self = d_.self;
  facts.rebuilding = d_.remote.IsRebuilding(id.Task());
  protocol::TaskSpec* lineage = id.IsPut() ? nullptr : d_.remote.LineageOf(id);
  facts.lineage = lineage;
  if (id.IsPut()) {
    facts.putter = d_.placement.NodeWithPrefix(HomeTag(id));
    if (facts.putter && !d_.placement.Known(*facts.putter)) facts.putter.reset();
  } else {
    facts.owner = OwnerNode(id);
  }
  facts.putter_alive = facts.putter && d_.placement.Alive(*facts.putter);
  facts.owner_alive = facts.owner && d_.placement.Alive(*facts.owner);
  facts.copies_gone = copies_gone;
  facts.evicted_here = d_.evicted.count(id) > 0;
  scheduler::Recovery r = scheduler::RecoverObject(id, facts);
  switch (r.action) {
    case scheduler::Recovery::kWait:
      return std::nullopt;
    case scheduler::Recovery::kLost:
      return std::move(r.why);
    case scheduler::Recovery::kRunAgain:
      RunAgainToMake(id, "has no copy left on a live node", *lineage);
      return std::nullopt;
    case scheduler::Recovery::kAskOwner:
      if (d_.pull(id, *facts.owner)) {
        RAY_LOG_INFO("object {} has no copy left on a live node: asking its owner, node {}",
                     id.Hex(), ToHex(*facts.owner));
      }
      return std::nullopt;
  }
  return std::nullopt;
}

std::optional<std::string> ObjectLocator::OwnerNode(const ObjectId& id) const {
  if (id.IsPut()) return std::nullopt;
  const std::string tag = SubmitterTag(id.Task());
  if (NodeHasTag(d_.self, tag)) return d_.self;
  return d_.placement.NodeWithPrefix(tag);
}

}  // namespace ray::raylet
