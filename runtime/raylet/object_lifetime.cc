#include "runtime/raylet/object_lifetime.h"

#include <unordered_set>

namespace ray::raylet {

using protocol::ObjectState;

void ObjectLifetime::OnFree(const std::string& peer, const protocol::FreeObjects& m) {
  const std::string holder = ObjectHolds::Process(peer);
  AddHolds(m.borrowed, holder);
  std::unordered_set<ObjectId, IdHash> kept(m.keep_segments.begin(), m.keep_segments.end());
  for (const ObjectId& id : m.ids) {
    if (holds_.OwnerReleased(id)) Free(id, kept.count(id) > 0);
  }
  std::vector<ObjectId> freed;
  for (const ObjectId& id : m.unborrowed) holds_.Remove(id, holder, freed);
  for (const ObjectId& id : freed) Unheld(id);
}

void ObjectLifetime::OnPeerHolds(const protocol::PeerHolds& m) {
  // (A node already dead here: its holds went with it, and late ones would never go.)
  if (d_.placement.Known(m.from_node) && !d_.placement.Alive(m.from_node)) return;
  const std::string holder = ObjectHolds::Node(m.from_node);
  for (const ObjectId& id : m.borrowed) holds_.Add(id, holder);
  std::vector<ObjectId> freed;
  for (const ObjectId& id : m.unborrowed) holds_.Remove(id, holder, freed);
  for (const ObjectId& id : freed) Unheld(id);
  for (const ObjectId& id : m.free_copies) {
    for (const std::string& node : d_.remote.TakeServed(id)) d_.peer_holds.FreeCopy(node, id);
    DropLocal(id);
  }
  if (m.seq != 0) d_.peer_holds.Acknowledge(m.from_node, m.seq);
}

void ObjectLifetime::AddHolds(const std::vector<ObjectId>& ids, const std::string& holder) {
  for (const ObjectId& id : ids) {
    const bool here = HomeIsHere(id);
    std::optional<std::string> home = here ? std::nullopt : HomeOf(id);
    // A home not heard of yet (a node that just joined): the cluster is read again.
    if (!here && !home && !d_.placement.NodeWithPrefix(HomeTag(id)) && d_.refresh_cluster()) {
      home = HomeOf(id);
    }
    if (holds_.Add(id, holder, /*owner_elsewhere=*/!here) && home) d_.peer_holds.Borrow(*home, id);
  }
}

void ObjectLifetime::ReleaseHolds(const std::string& holder) {
  std::vector<ObjectId> freed;
  holds_.RemoveHolder(holder, freed);
  for (const ObjectId& id : freed) Unheld(id);
}

void ObjectLifetime::TaskEnded(const TaskId& task) {
  if (holds_.empty() || d_.keeps_arguments(task)) return;
  ReleaseHolds(ObjectHolds::Task(task));
}

void ObjectLifetime::Free(const ObjectId& id, bool keep_segment) {
  DropLocal(id, keep_segment);
  if (d_.placement.MultiNode()) {
    // Copies elsewhere: where its task ran, and where copies were served from here
    // (each passes it on to the nodes it served in turn).
    if (const std::string* ran = d_.remote.NodeOf(id)) d_.peer_holds.FreeCopy(*ran, id);
    for (const std::string& node : d_.remote.TakeServed(id)) d_.peer_holds.FreeCopy(node, id);
  }
  if (!id.IsPut() && id.Index() == 1) d_.actor_unreferenced(ActorOfCreation(id.Task()));
}

void ObjectLifetime::DropLocal(const ObjectId& id, bool keep_segment) {
  if (const StoredObject* o = d_.objects.Find(id)) {
    if (o->state == ObjectState::kShared) d_.free_shared(id, keep_segment);
    d_.objects.Erase(id);
  } else if (const TaskId task = id.Task();
             HomeIsHere(id) ? !d_.remote.NodeOf(id) || d_.remote.Unfinished(task)
                            : d_.remote.FromElsewhere(task)) {
    // Its task has not finished: dropped when it comes (here, or as a copy along with
    // the report of a task that ran elsewhere).
    d_.objects.FreeOnArrival(id);
  }
  if (!holds_.empty()) ReleaseHolds(ObjectHolds::Object(id));  // refs nested in it
}

void ObjectLifetime::Unheld(const ObjectId& id) {
  if (HomeIsHere(id)) return Free(id);
  if (auto home = HomeOf(id)) return d_.peer_holds.Unborrow(*home, id, d_.clock.MonoMillis());
  DropLocal(id);  // its home is gone: nothing else would free this copy
}

bool ObjectLifetime::HomeIsHere(const ObjectId& id) const {
  return NodeHasTag(d_.self, HomeTag(id));
}

std::optional<std::string> ObjectLifetime::HomeOf(const ObjectId& id) const {
  if (HomeIsHere(id)) return std::nullopt;
  auto node = d_.placement.NodeWithPrefix(HomeTag(id));
  if (!node || !d_.placement.Alive(*node)) return std::nullopt;
  return node;
}

}  // namespace ray::raylet
