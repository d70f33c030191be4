#include "runtime/api/object_client.h"

#include <algorithm>
#include <functional>

#include "runtime/base/clock.h"

namespace ray::core {

using protocol::MessageType;
using protocol::ObjectPayload;
using protocol::ObjectState;
namespace ri = ray::internal;

namespace {
// Spare segments a process keeps, in bytes: beyond this, freed segments go.
constexpr size_t kMaxSpareBytes = 1ull << 30;
// Times a Get asks for an object whose segment keeps vanishing before it is mapped.
constexpr int kMaxGetAttempts = 4;
// Ready objects a process remembers without their values (ready_in_store_).
constexpr size_t kMaxReadyInStore = 100000;
}  // namespace

ObjectClient::ObjectClient(RayletConnection* raylet, ReferenceCounter* refs)
    : raylet_(raylet), refs_(refs) {
  raylet_->SetPiggyback([this](bool all) { return TakeFrees(all); });
}

ObjectClient::~ObjectClient() {
  for (const auto& segment : spare_) object_store::UnlinkSegment(segment->name());
}

Result<ObjectPayload> ObjectClient::MakePayload(const ObjectId& id, std::string_view bytes) {
  ObjectPayload p;
  p.id = id;
  if (bytes.size() < protocol::kInlineObjectLimit) {
    p.state = static_cast<uint8_t>(ObjectState::kInline);
    p.data = std::string(bytes);
    return p;
  }
  RAY_ASSIGN_OR_RETURN(auto segment, WriteSegment(id, {bytes}, bytes.size()));
  p.state = static_cast<uint8_t>(ObjectState::kShared);
  p.shm_name = segment->name();
  p.size = bytes.size();
  return p;
}

Result<std::shared_ptr<object_store::WritableSegment>> ObjectClient::WriteSegment(
    const ObjectId& id, const std::vector<std::string_view>& parts, size_t size) {
  std::string name = object_store::SegmentName(raylet_->node().store_tag, id);
  std::shared_ptr<object_store::WritableSegment> segment;
  auto spare = std::find_if(spare_.begin(), spare_.end(),
                            [&](const auto& s) { return s->size() == size; });
  if (spare != spare_.end()) {
    auto taken = std::move(*spare);
    spare_.erase(spare);
    spare_bytes_ -= size;
    if (taken->Rename(name).ok()) segment = std::move(taken);  // else dropped
  }
  if (!segment) {
    RAY_ASSIGN_OR_RETURN(segment, object_store::WritableSegment::Create(name, size));
  }
  segment->Fill(parts);
  return segment;
}

Result<Fetched> ObjectClient::Materialize(const ObjectPayload& p) {
  Fetched f;
  f.state = static_cast<ObjectState>(p.state);
  switch (f.state) {
    case ObjectState::kInline:
    case ObjectState::kError: {
      auto copy = std::make_shared<std::string>(p.data);
      f.data = copy->data();
      f.size = copy->size();
      f.keep = copy;
      return f;
    }
    case ObjectState::kShared: {
      const ObjectId& id = p.id;
      if (auto w = written_.find(id); w != written_.end()) {  // put here: already mapped
        f.data = w->second->data();
        f.size = w->second->size();
        f.keep = w->second;
        return f;
      }
      RAY_ASSIGN_OR_RETURN(auto mapping, object_store::MapSegment(p.shm_name, p.size));
      f.data = mapping->data();
      f.size = mapping->size();
      f.keep = mapping;
      return f;
    }
    case ObjectState::kMissing:
      return f;
  }
  return Status::DataLoss("object in unknown state " + std::to_string(p.state));
}

Result<ObjectId> ObjectClient::Put(const ObjectId& id, const std::vector<std::string_view>& parts) {
  PromoteEscaped(/*wait_in_flight=*/false);  // the value may hold refs to direct results
  size_t size = 0;
  for (std::string_view part : parts) size += part.size();
  protocol::PutRequest put;
  put.object.id = id;
  const std::vector<ObjectId> contained = refs_->TakeContained();
  put.contained_refs = contained;
  refs_->Own(id);
  if (size < protocol::kInlineObjectLimit) {
    put.object.state = static_cast<uint8_t>(ObjectState::kInline);
    for (std::string_view part : parts) put.object.data.append(part);
    raylet_->SendWithPiggyback(protocol::Encode(MessageType::kPutObject, 0, put), /*all=*/false);
    refs_->CarrierSent(contained);
    cache_.Insert(id, ObjectState::kInline,
                  std::make_shared<const std::string>(std::move(put.object.data)));
    return id;
  }
  auto written = WriteSegment(id, parts, size);
  if (!written.ok()) refs_->CarrierSent(contained);
  RAY_ASSIGN_OR_RETURN(auto segment, std::move(written));
  put.object.state = static_cast<uint8_t>(ObjectState::kShared);
  put.object.shm_name = segment->name();
  put.object.size = size;
  UnmapIdlePuts();  // before the store makes room for this one
  written_bytes_ += size;
  // (Ids freed since stay in the order until passed: dropped when they are many.)
  if (written_order_.size() > 2 * written_.size() + 64) {
    std::erase_if(written_order_, [&](const ObjectId& o) { return !written_.count(o); });
  }
  written_order_.push_back(id);
  written_[id] = std::move(segment);
  // Shared-memory puts are acknowledged: the store may refuse them.
  auto sent = raylet_->Request(MessageType::kPutObject, ri::Pack(put), MessageType::kCallReply);
  refs_->CarrierSent(contained);
  RAY_ASSIGN_OR_RETURN(std::string body, std::move(sent));
  RAY_ASSIGN_OR_RETURN(auto reply, protocol::DecodeBody<protocol::CallReply>(body, "CallReply"));
  if (!reply.error.empty()) {
    written_bytes_ -= size;
    written_.erase(id);  // refused: the raylet removed the segment
    return Status::ResourceExhausted(reply.error);
  }
  return id;
}

void ObjectClient::UnmapIdlePuts() {
  const size_t limit = raylet_->node().store_capacity / 2;
  // (One pass at most: a put still read here goes to the back, to be looked at again
  // after the others.)
  for (size_t n = written_order_.size(); n > 0 && written_bytes_ > limit; --n) {
    ObjectId id = written_order_.front();
    written_order_.pop_front();
    auto w = written_.find(id);
    if (w == written_.end()) continue;  // freed or refused meanwhile
    if (w->second.use_count() > 1) {    // a value here still reads it
      written_order_.push_back(id);
      continue;
    }
    written_bytes_ -= w->second->size();
    written_.erase(w);
  }
}

Result<std::vector<Fetched>> ObjectClient::Get(const std::vector<ObjectId>& ids,
                                               int64_t timeout_ms, const std::string& from_node) {
  const int64_t deadline = DeadlineAfter(timeout_ms);
  // Results of direct calls come here, not to the raylet: wait for them first.
  if (direct_.AnyPending() && !raylet_->Pump(0)) return Status::Unavailable("the raylet died");
  for (const ObjectId& id : ids) {
    while (direct_.Pending(id) && MillisLeft(deadline) != 0) {
      if (!raylet_->Pump(MillisLeft(deadline))) return Status::Unavailable("the raylet died");
    }
  }
  std::vector<Fetched> out(ids.size());
  protocol::GetRequest req;
  req.from_node = from_node;
  std::vector<size_t> asked;  // positions of the ids the raylet has
  bool indexed_any = false;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (const ObjectCache::Entry* e = LocalValue(ids[i])) {
      out[i] = Fetched{e->state, e->data->data(), e->data->size(), e->data};
    } else if (direct_.Pending(ids[i])) {
      // still in flight: kMissing
    } else if (auto indexed = FromIndex(ids[i])) {
      out[i] = std::move(*indexed);
      indexed_any = true;
    } else {
      req.ids.push_back(ids[i]);
      asked.push_back(i);
    }
  }
  if (indexed_any) ++block_epoch_;  // (as if the raylet had answered)
  // A full store may spill an object between its reply and our mapping of it (its
  // segment is gone then): such objects are asked for again, and restored.
  for (int attempt = 1; !asked.empty(); ++attempt) {
    req.timeout_ms = MillisLeft(deadline);
    ++block_epoch_;
    RAY_ASSIGN_OR_RETURN(std::string body, raylet_->Request(MessageType::kGetObjects, ri::Pack(req),
                                                            MessageType::kGetReply));
    RAY_ASSIGN_OR_RETURN(auto reply, protocol::DecodeBody<protocol::GetReply>(body, "GetReply"));
    if (reply.objects.size() != asked.size()) {
      return Status::Internal("the raylet answered a Get with the wrong number of objects");
    }
    protocol::GetRequest again;
    again.from_node = from_node;
    std::vector<size_t> again_at;
    for (size_t k = 0; k < asked.size(); ++k) {
      auto f = Materialize(reply.objects[k]);
      if (!f.ok() && f.status().code() == StatusCode::kNotFound && attempt < kMaxGetAttempts) {
        again.ids.push_back(req.ids[k]);
        again_at.push_back(asked[k]);
        continue;
      }
      if (!f.ok()) return f.status();
      if (f->state == ObjectState::kInline || f->state == ObjectState::kError) {
        // Materialize keeps inline and error bytes in a std::string.
        cache_.Insert(ids[asked[k]], f->state,
                      std::static_pointer_cast<const std::string>(f->keep));
      }
      out[asked[k]] = std::move(*f);
    }
    req = std::move(again);
    asked = std::move(again_at);
  }
  return out;
}

const object_store::ObjectIndexReader* ObjectClient::Index() {
  if (!index_opened_) {
    index_opened_ = true;
    index_ = object_store::ObjectIndexReader::Open(
        object_store::ObjectIndexName(raylet_->node().store_tag));
  }
  return index_.get();
}

bool ObjectClient::Indexed(const ObjectId& id) {
  const object_store::ObjectIndexReader* index = Index();
  return index && index->Contains(id);
}

std::optional<Fetched> ObjectClient::FromIndex(const ObjectId& id) {
  const object_store::ObjectIndexReader* index = Index();
  if (!index) return std::nullopt;
  auto found = index->Find(id);
  if (!found) return std::nullopt;
  auto state = static_cast<ObjectState>(found->kind);
  if (state != ObjectState::kInline && state != ObjectState::kError) return std::nullopt;
  auto bytes = std::make_shared<const std::string>(std::move(found->bytes));
  cache_.Insert(id, state, bytes);
  return Fetched{state, bytes->data(), bytes->size(), bytes};
}

const ObjectCache::Entry* ObjectClient::LocalValue(const ObjectId& id) const {
  if (const ObjectCache::Entry* e = cache_.Find(id)) return e;
  return direct_.Find(id);
}

bool ObjectClient::Holds(const ObjectId& id) const {
  return LocalValue(id) != nullptr || written_.count(id) > 0;
}

ObjectPayload ObjectClient::ArgPayload(const ObjectId& id) const {
  ObjectPayload p;
  p.id = id;
  if (const ObjectCache::Entry* e = LocalValue(id)) {
    p.state = static_cast<uint8_t>(e->state);
    p.data = *e->data;
    return p;
  }
  if (auto w = written_.find(id); w != written_.end()) {
    p.state = static_cast<uint8_t>(ObjectState::kShared);
    p.shm_name = w->second->name();
    p.size = w->second->size();
  }
  return p;
}

Result<std::vector<bool>> ObjectClient::Wait(const std::vector<ObjectId>& ids, size_t num,
                                             int64_t timeout_ms) {
  if (!AllUnique(ids)) return Status::InvalidArgument("Wait: object ids must be unique");
  if (num > ids.size()) return Status::InvalidArgument("Wait: num exceeds the number of objects");
  const int64_t deadline = DeadlineAfter(timeout_ms);
  // Answered from what this process holds when it can: the frames waiting on its
  // sockets are read only when that is not enough (a loop of Waits over results
  // arriving would otherwise read them one by one, each a round of wake-ups).
  bool pumped = false;
  bool indexed_any = false;
  std::vector<bool> ready(ids.size());
  std::vector<bool> raylet_ready(ids.size());  // what the raylet said was ready (stays so)
  // Report at most `num` ready, in input order (Ray's contract).
  auto answer = [&] {
    size_t taken = 0;
    for (size_t i = 0; i < ids.size(); ++i) ready[i] = ready[i] && taken++ < num;
    return ready;
  };
  while (true) {
    size_t count = 0;
    protocol::WaitRequest req;
    std::vector<size_t> asked, in_flight;  // positions: the raylet's, direct calls'
    // Positions past the num-th ready one stay unready: they need no look.
    for (size_t i = 0; i < ids.size() && count < num; ++i) {
      ready[i] = raylet_ready[i] || LocalValue(ids[i]) != nullptr || ready_in_store_.count(ids[i]);
      if (ready[i]) {
        ++count;
      } else if (direct_.Pending(ids[i])) {
        in_flight.push_back(i);
      } else if (Indexed(ids[i])) {  // (what the raylet holds: a direct result is not there)
        ready[i] = true;
        ++count;
        if (!std::exchange(indexed_any, true)) ++block_epoch_;  // (as if the raylet had answered)
      } else {
        req.ids.push_back(ids[i]);
        asked.push_back(i);
      }
    }
    int wait = MillisLeft(deadline);
    if (count >= num) return answer();
    if (asked.empty()) {
      // Only direct results can still come: handle the frames waiting (the first
      // time), then wait for more.
      if (wait == 0 && (pumped || in_flight.empty())) return answer();
      if (!raylet_->Pump(pumped ? wait : 0)) return Status::Unavailable("the raylet died");
      pumped = true;
      continue;
    }
    // The raylet answers for the rest, unless a direct result arriving meanwhile
    // changes the count first (then count again).
    req.num = static_cast<uint32_t>(std::min(num - count, asked.size()));
    req.timeout_ms = wait;
    auto arrived = [&] {
      return std::any_of(in_flight.begin(), in_flight.end(),
                         [&](size_t i) { return !direct_.Pending(ids[i]); });
    };
    ++block_epoch_;
    RAY_ASSIGN_OR_RETURN(auto body, raylet_->Request(MessageType::kWaitObjects, ri::Pack(req),
                                                     MessageType::kWaitReply,
                                                     in_flight.empty()
                                                         ? std::function<bool()>()
                                                         : std::function<bool()>(arrived)));
    if (!body) continue;
    RAY_ASSIGN_OR_RETURN(auto reply, protocol::DecodeBody<protocol::WaitReply>(*body, "WaitReply"));
    if (reply.ready.size() != asked.size()) return Status::Internal("malformed WaitReply");
    if (ready_in_store_.size() > kMaxReadyInStore) ready_in_store_.clear();
    for (size_t k = 0; k < asked.size(); ++k) {
      raylet_ready[asked[k]] = reply.ready[k];
      if (reply.ready[k]) ready_in_store_.insert(ids[asked[k]]);
    }
    if (wait == 0) {  // a poll: one answer is all
      for (size_t i = 0; i < ids.size(); ++i) {
        ready[i] = raylet_ready[i] || LocalValue(ids[i]) || ready_in_store_.count(ids[i]);
      }
      return answer();
    }
  }
}

Status ObjectClient::PutResults(std::vector<ObjectPayload>& returns,
                                const std::vector<ObjectId>& contained) {
  std::vector<size_t> values;
  for (size_t i = 0; i < returns.size(); ++i) {
    if (returns[i].state != static_cast<uint8_t>(ObjectState::kError)) values.push_back(i);
  }
  for (size_t k = 0; k < values.size(); ++k) {
    ObjectPayload& p = returns[values[k]];
    protocol::PutRequest put{std::move(p), contained};
    p = ObjectPayload();
    p.id = put.object.id;  // kMissing: the raylet has it
    if (k + 1 < values.size()) {
      raylet_->Send(protocol::Encode(MessageType::kPutObject, 0, put));
      continue;
    }
    // The last one acknowledged: the raylet holds every result's refs from then on.
    RAY_ASSIGN_OR_RETURN(std::string body, raylet_->Request(MessageType::kPutObject,
                                                            ri::Pack(put), MessageType::kCallReply));
  }
  return Status::Ok();
}

Status ObjectClient::SyncBorrows() {
  if (!refs_->BorrowsPending()) return Status::Ok();
  return raylet_->Call("sync_refs", "").status();
}

void ObjectClient::PromoteEscaped(bool wait_in_flight) {
  for (const ObjectId& id : refs_->TakeEscapedDirect()) {
    if (direct_.Pending(id)) {
      escaped_in_flight_.insert(id);
    } else {
      SendPromoted(id);
    }
  }
  if (!wait_in_flight) return;
  auto in_flight = [&] {
    return std::any_of(escaped_in_flight_.begin(), escaped_in_flight_.end(),
                       [&](const ObjectId& id) { return direct_.Pending(id); });
  };
  while (in_flight()) {
    if (!raylet_->Pump(1000)) return;  // the raylet died: nothing to give the objects to
  }
  PromoteArrived();
}

void ObjectClient::PromoteArrived() {
  for (auto it = escaped_in_flight_.begin(); it != escaped_in_flight_.end();) {
    const ObjectId id = *it;
    if (direct_.Pending(id)) {
      ++it;
      continue;
    }
    SendPromoted(id);  // (not held here: its call went through the raylet again)
    if (freed_in_flight_.erase(id) > 0 && !direct_.Forget(id)) late_frees_.push_back(id);
    it = escaped_in_flight_.erase(it);
  }
}

void ObjectClient::SendPromoted(const ObjectId& id) {
  const ObjectCache::Entry* v = direct_.Find(id);
  if (!v) return;  // the raylet has it already
  protocol::PutRequest put;
  put.object.id = id;
  put.object.state = static_cast<uint8_t>(v->state);
  put.object.data = *v->data;
  raylet_->Send(protocol::Encode(MessageType::kPutObject, 0, put));
}

std::string ObjectClient::TakeFrees(bool all) {
  protocol::FreeObjects frees;
  ReferenceCounter::Changes changes = refs_->TakeChanges(all);
  frees.borrowed = changes.borrowed;
  frees.unborrowed = changes.unborrowed;
  frees.ids = std::exchange(late_frees_, {});
  for (size_t i = 0; i < changes.freed.size(); ++i) {
    const ObjectId& id = changes.freed[i];
    // An escaped one still in flight: the raylet waits for it (PromoteArrived).
    if (escaped_in_flight_.count(id)) {
      freed_in_flight_.insert(id);
      continue;
    }
    // Direct results the raylet never saw go here alone (one still in flight is
    // dropped when it comes).
    if (direct_.Forget(id)) continue;
    frees.ids.push_back(id);
    cache_.Erase(id);
    ready_in_store_.erase(id);
    auto w = written_.find(id);
    if (w == written_.end()) continue;
    written_bytes_ -= w->second->size();
    // Kept as a spare only if nothing here still reads it, and no other process can
    // (the id never left this one).
    if (!changes.freed_escaped[i] && w->second.use_count() == 1 &&
        spare_bytes_ + w->second->size() <= kMaxSpareBytes) {
      spare_bytes_ += w->second->size();
      spare_.push_back(std::move(w->second));
      frees.keep_segments.push_back(id);
    }
    written_.erase(w);
  }
  if (frees.ids.empty() && frees.borrowed.empty() && frees.unborrowed.empty()) {
    return std::string();
  }
  return protocol::Encode(MessageType::kFreeObjects, 0, frees);
}

}  // namespace ray::core
