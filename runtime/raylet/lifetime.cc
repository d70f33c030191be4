// Who holds objects, on this node and on others, and freeing them (object_holds.h has
// the protocol on one node, peer_holds.h across nodes).

#include "runtime/raylet/raylet_impl.h"

namespace ray::raylet {

void Raylet::HandleFree(Client& c, std::string_view body) {
  auto msg = DecodeFrom<protocol::FreeObjects>(c.peer, body, "FreeObjects");
  if (!msg) return;
  const std::string holder = ObjectHolds::Process(c.peer);
  AddHolds(msg->borrowed, holder);
  std::unordered_set<ObjectId, IdHash> kept(msg->keep_segments.begin(), msg->keep_segments.end());
  for (const ObjectId& id : msg->ids) {
    if (holds_.OwnerReleased(id)) FreeObject(id, kept.count(id) > 0);
  }
  std::vector<ObjectId> freed;
  for (const ObjectId& id : msg->unborrowed) holds_.Remove(id, holder, freed);
  for (const ObjectId& id : freed) Unheld(id);
}

void Raylet::FreeObject(const ObjectId& id, bool keep_segment) {
  DropLocal(id, keep_segment);
  if (MultiNode()) {
    // Copies elsewhere: where its task ran, and where copies were served from here
    // (each passes it on to the nodes it served in turn).
    if (const std::string* ran = remote_.NodeOf(id)) peer_holds_.FreeCopy(*ran, id);
    for (const std::string& node : remote_.TakeServed(id)) peer_holds_.FreeCopy(node, id);
  }
  if (!id.IsPut() && id.Index() == 1) OnActorUnreferenced(ActorOfCreation(id.Task()));
}

void Raylet::DropLocal(const ObjectId& id, bool keep_segment) {
  if (const StoredObject* o = objects_.Find(id)) {
    if (o->state == ObjectState::kShared) {
      if (keep_segment) {
        store_.Forget(id);  // the client fills the segment again; `ray stop` removes it
      } else {
        store_.Free(id);
      }
    }
    objects_.Erase(id);
  } else if (const TaskId task = id.Task();
             HomeIsHere(id) ? !remote_.NodeOf(id) || remote_.Unfinished(task)
                            : remote_.FromElsewhere(task)) {
    // Its task has not finished: dropped when it comes (here, or as a copy along with
    // the report of a task that ran elsewhere).
    objects_.FreeOnArrival(id);
  }
  if (!holds_.empty()) ReleaseHolds(ObjectHolds::Object(id));  // refs nested in it
}

void Raylet::StoreHolding(std::span<const ObjectPayload> objects,
                          const std::vector<ObjectId>& contained) {
  // (Every hold first: storing a task's first result lets go of its arguments.)
  if (!contained.empty()) {
    for (const ObjectPayload& p : objects) AddHolds(contained, ObjectHolds::Object(p.id));
  }
  for (const ObjectPayload& p : objects) {
    StoreObject(p);
    // Dropped (freed before it came): what its value held goes too.
    if (!contained.empty() && !objects_.Find(p.id)) ReleaseHolds(ObjectHolds::Object(p.id));
  }
}

void Raylet::AddHolds(const std::vector<ObjectId>& ids, const std::string& holder) {
  for (const ObjectId& id : ids) {
    const bool here = HomeIsHere(id);
    std::optional<std::string> home = here ? std::nullopt : HomeOf(id);
    // A home not heard of yet (a node that just joined): the cluster is read again.
    if (!here && !home && !placement_.NodeWithPrefix(HomeTag(id)) && RefreshCluster()) {
      home = HomeOf(id);
    }
    if (holds_.Add(id, holder, /*owner_elsewhere=*/!here) && home) peer_holds_.Borrow(*home, id);
  }
}

void Raylet::ReleaseHolds(const std::string& holder) {
  std::vector<ObjectId> freed;
  holds_.RemoveHolder(holder, freed);
  for (const ObjectId& id : freed) Unheld(id);
}

void Raylet::Unheld(const ObjectId& id) {
  if (HomeIsHere(id)) return FreeObject(id);
  if (auto home = HomeOf(id)) return peer_holds_.Unborrow(*home, id, clock_.MonoMillis());
  DropLocal(id);  // its home is gone: nothing else would free this copy
}

void Raylet::TaskEnded(const TaskId& task) {
  if (holds_.empty()) return;
  // An actor that may restart runs its constructor again: with the same arguments.
  if (const Actor* a = actors_.Find(ActorOfCreation(task));
      a && a->creation.task_id == task && a->state != Actor::kDead && a->MayRestart()) {
    return;
  }
  ReleaseHolds(ObjectHolds::Task(task));
}

bool Raylet::HomeIsHere(const ObjectId& id) const {
  const std::string tag = HomeTag(id);
  return node_id_.Binary().compare(0, tag.size(), tag) == 0;
}

std::optional<std::string> Raylet::HomeOf(const ObjectId& id) const {
  if (HomeIsHere(id)) return std::nullopt;
  auto node = placement_.NodeWithPrefix(HomeTag(id));
  if (!node || !placement_.Alive(*node)) return std::nullopt;
  return node;
}

void Raylet::OnPeerHolds(const protocol::PeerHolds& m) {
  // (A node already dead here: its holds went with it, and late ones would never go.)
  if (placement_.Known(m.from_node) && !placement_.Alive(m.from_node)) return;
  const std::string holder = ObjectHolds::Node(m.from_node);
  for (const ObjectId& id : m.borrowed) holds_.Add(id, holder);
  std::vector<ObjectId> freed;
  for (const ObjectId& id : m.unborrowed) holds_.Remove(id, holder, freed);
  for (const ObjectId& id : freed) Unheld(id);
  for (const ObjectId& id : m.free_copies) {
    for (const std::string& node : remote_.TakeServed(id)) peer_holds_.FreeCopy(node, id);
    DropLocal(id);
  }
  if (m.seq != 0) peer_holds_.Acknowledge(m.from_node, m.seq);
}

void Raylet::ReplyAfterBorrows(const std::string& peer, uint64_t req, protocol::CallReply reply) {
  peer_holds_.After([this, peer, req, reply = std::move(reply)] {
    SendMsg(peer, MessageType::kCallReply, req, reply);
  }, clock_.MonoMillis());
}

}  // namespace ray::raylet
