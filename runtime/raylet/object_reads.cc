#include "runtime/raylet/object_reads.h"

#include <algorithm>

#include "runtime/base/logging.h"

namespace ray::raylet {

using protocol::ObjectPayload;
using protocol::ObjectState;
namespace ri = ray::internal;

void ObjectReads::Await(const std::shared_ptr<Waiter>& w) {
  bool complete =
      node_.objects.AddWaiter(w, [&](const ObjectId& id) { node_.locate(id, w->origin); });
  if (complete) Complete(w);
}

void ObjectReads::Complete(const std::shared_ptr<Waiter>& w) {
  if (w->done) return;
  if (AwaitRestore(w)) return;  // completed again once its objects are back
  w->done = true;
  switch (w->kind) {
    case Waiter::kGet: {
      protocol::GetReply reply;
      for (const auto& id : w->ids) reply.objects.push_back(PayloadOf(id));
      node_.outbox.Send(w->peer, protocol::MessageType::kGetReply, w->request_id, reply);
      node_.lending.Answered(w->peer, w->request_id);
      break;
    }
    case Waiter::kWait: {
      protocol::WaitReply reply;
      for (const auto& id : w->ids) reply.ready.push_back(node_.objects.Ready(id) ? 1 : 0);
      node_.outbox.Send(w->peer, protocol::MessageType::kWaitReply, w->request_id, reply);
      node_.lending.Answered(w->peer, w->request_id);
      break;
    }
    case Waiter::kPeerPull:
      node_.pull_ready(*w);
      break;
    case Waiter::kTask:
      node_.args_ready(*w);
      break;
  }
}

void ObjectReads::ExpireDeadlines() {
  // Each replies with what is ready so far.
  node_.objects.ExpireWaiters([&](const std::shared_ptr<Waiter>& w) { Complete(w); });
}

bool ObjectReads::AwaitRestore(const std::shared_ptr<Waiter>& w) {
  if (w->kind == Waiter::kWait) return false;  // (it reads no object)
  bool pending = false;
  for (const ObjectId& id : w->ids) {
    const StoredObject* o = node_.objects.Find(id);
    if (!o || o->state != ObjectState::kShared || !node_.store.Spilled(id)) continue;
    if (unrestorable_.count(id)) continue;  // PayloadOf says why
    Status st = node_.store.StartRestore(id);
    node_.drop_evicted();
    if (st.code() != StatusCode::kUnavailable) continue;  // here now, or PayloadOf says why not
    auto& readers = restoring_[id];
    if (std::find(readers.begin(), readers.end(), w) == readers.end()) readers.push_back(w);
    pending = true;
  }
  return pending;
}

void ObjectReads::OnStoreIo() {
  for (const auto& r : node_.store.CompleteIo()) {
    if (!r.status.ok()) {
      RAY_LOG_WARN("restoring object {} failed: {}", r.id.Hex(), r.status.message());
      unrestorable_.insert(r.id);  // its readers get the error, not another restore
    }
    auto it = restoring_.find(r.id);
    if (it == restoring_.end()) continue;
    auto readers = std::move(it->second);
    restoring_.erase(it);
    for (const auto& w : readers) Complete(w);
  }
}

ObjectPayload ObjectReads::PayloadOf(const ObjectId& id) {
  ObjectPayload p;
  p.id = id;
  const StoredObject* o = node_.objects.Find(id);
  if (!o) return p;  // kMissing
  if (o->state == ObjectState::kShared) {
    Status restored = node_.store.Restore(id);
    node_.drop_evicted();
    o = node_.objects.Find(id);  // restoring may have evicted others, never this one
    if (restored.ok()) unrestorable_.erase(id);
    if (!restored.ok()) {
      p.state = static_cast<uint8_t>(ObjectState::kError);
      p.data = ri::Pack(ri::ErrorInfo{
          ri::kSystem, "ObjectStoreFullError",
          "cannot restore spilled object " + id.Hex() + ": " + restored.message(), "", ""});
      return p;
    }
    node_.store.Touch(id);
  }
  p.state = static_cast<uint8_t>(o->state);
  p.data = o->data;
  p.shm_name = o->segment;
  p.size = o->size;
  return p;
}

}  // namespace ray::raylet
