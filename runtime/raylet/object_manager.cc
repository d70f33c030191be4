#include "runtime/raylet/object_manager.h"

#include <algorithm>
#include <utility>

#include "runtime/base/logging.h"
#include "runtime/base/util.h"
#include "runtime/object_store/object_store.h"

namespace ray::raylet {

using protocol::MessageType;
using protocol::ObjectState;

namespace {
// A transfer whose receiver has not acked a chunk for this long is dropped.
constexpr int64_t kOutgoingTimeoutMs = 60000;
}  // namespace

ObjectManager::ObjectManager(NodeId self, std::string token, std::string store_tag,
                             Handlers handlers, const Clock& clock)
    : clock_(clock),
      self_(self),
      token_(std::move(token)),
      store_tag_(std::move(store_tag)),
      handlers_(std::move(handlers)) {}

Result<std::string> ObjectManager::Listen(const std::string& ip) {
  return router_.Bind("tcp://" + ip + ":*");
}

void ObjectManager::SetPeerAddress(const std::string& node_id, const std::string& address) {
  auto it = addresses_.find(node_id);
  if (it != addresses_.end() && it->second != address) dealers_.erase(node_id);
  addresses_[node_id] = address;
}

std::vector<ObjectId> ObjectManager::ForgetPeer(const std::string& node_id) {
  dealers_.erase(node_id);
  addresses_.erase(node_id);
  // (A peer's identity is its node id and 4 random bytes: see DealerFor.)
  std::erase_if(outgoing_, [&](const auto& o) { return o.first.first.rfind(node_id, 0) == 0; });
  std::erase_if(waiting_serves_, [&](const auto& w) { return w.first.rfind(node_id, 0) == 0; });
  ServeWaiting();
  return TakePullsIf([&](const ObjectId&, const Transfer& pull) { return pull.node_id == node_id; });
}

template <typename Pred>
std::vector<ObjectId> ObjectManager::TakePullsIf(Pred&& pred) {
  std::vector<ObjectId> taken;
  for (auto it = pulls_.begin(); it != pulls_.end();) {
    if (pred(it->first, it->second)) {
      taken.push_back(it->first);
      it = pulls_.erase(it);  // an unfinished segment is unlinked with its writer
    } else {
      ++it;
    }
  }
  return taken;
}

transport::Dealer* ObjectManager::DealerFor(const std::string& node_id) {
  auto it = dealers_.find(node_id);
  if (it != dealers_.end()) return it->second.get();
  auto address = addresses_.find(node_id);
  if (address == addresses_.end() || address->second.empty()) {
    RAY_LOG_WARN("no address for node {}", ToHex(node_id));
    return nullptr;
  }
  // A fresh identity per connection, so a reconnect is a new peer to the server.
  auto dealer = std::make_unique<transport::Dealer>(self_.Binary() + RandomBytes(4));
  if (Status st = dealer->Connect(address->second); !st.ok()) {
    RAY_LOG_WARN("{}", st.message());
    return nullptr;
  }
  dealer->Send(protocol::Encode(MessageType::kPeerHello, 0,
                                protocol::PeerHello{self_.Binary(), token_}));
  return (dealers_[node_id] = std::move(dealer)).get();
}

void ObjectManager::AddPollItems(std::vector<zmq::pollitem_t>& items) {
  items.push_back({router_.socket().handle(), 0, ZMQ_POLLIN, 0});
  for (auto& [id, d] : dealers_) items.push_back({d->socket().handle(), 0, ZMQ_POLLIN, 0});
}

void ObjectManager::Poll() {
  for (int i = 0; i < 1024; ++i) {
    auto in = router_.Recv(0);
    if (!in) break;
    HandleRequest(*in);
  }
  // Handlers may add or drop dealers: collect the messages first.
  struct Message {
    std::string node_id;  // the peer it came from
    std::string frame;
    zmq::message_t part;
  };
  std::vector<Message> messages;
  for (auto& [id, d] : dealers_) {
    zmq::message_t part;
    while (auto frame = d->Recv(0, &part)) messages.push_back({id, std::move(*frame), std::move(part)});
  }
  for (auto& m : messages) HandleChunk(m.node_id, m.frame, m.part);
  // Transfers to a peer that stopped acking (it died, or forgot the pull) end.
  std::erase_if(outgoing_, [now = clock_.MonoMillis()](const auto& o) {
    return now - o.second.acked_ms > kOutgoingTimeoutMs;
  });
  ServeWaiting();
}

void ObjectManager::HandleRequest(const transport::Incoming& in) {
  auto env = protocol::DecodeEnvelope(in.frame);
  if (!env.ok()) {
    RAY_LOG_WARN("dropped peer frame from {}: {}", ToHex(in.peer), env.status().message());
    return;
  }
  if (env->type == MessageType::kPeerHello) {
    auto hello = protocol::DecodeBody<protocol::PeerHello>(env->body, "PeerHello");
    if (hello.ok() && hello->token == token_) {
      authorized_.insert(in.peer);
    } else {
      RAY_LOG_WARN("refused peer {}: invalid cluster token", ToHex(in.peer));
    }
    return;
  }
  if (!authorized_.count(in.peer)) {
    RAY_LOG_WARN("dropped message type {} from unauthenticated peer {}",
                 static_cast<int>(env->type), ToHex(in.peer));
    return;
  }
  switch (env->type) {
    case MessageType::kForwardTask: {
      auto t = protocol::DecodeBody<protocol::ForwardTask>(env->body, "ForwardTask");
      if (t.ok()) return handlers_.task_forwarded(std::move(t).value());
      RAY_LOG_WARN("peer {}: {}", ToHex(in.peer), t.status().message());
      return;
    }
    case MessageType::kPullObject: {
      auto p = protocol::DecodeBody<protocol::PullObject>(env->body, "PullObject");
      if (p.ok()) return handlers_.pull_requested(in.peer, p->object_id);
      RAY_LOG_WARN("peer {}: {}", ToHex(in.peer), p.status().message());
      return;
    }
    case MessageType::kChunkAck: {
      auto p = protocol::DecodeBody<protocol::PullObject>(env->body, "ChunkAck");
      if (p.ok()) return Ack(in.peer, p->object_id);
      RAY_LOG_WARN("peer {}: {}", ToHex(in.peer), p.status().message());
      return;
    }
    case MessageType::kKillActor:
      return Dispatch<protocol::ActorKill>(in.peer, env->body, "ActorKill", handlers_.actor_kill);
    case MessageType::kReadLogs: {
      auto r = protocol::DecodeBody<protocol::LogsRequest>(env->body, "LogsRequest");
      if (r.ok() && handlers_.logs_requested) {
        router_.Send(in.peer, protocol::Encode(MessageType::kLogsReply, env->request_id,
                                               handlers_.logs_requested(*r)));
        return;
      }
      RAY_LOG_WARN("peer {}: {}", ToHex(in.peer),
                   r.ok() ? "LogsRequest not handled here" : r.status().message());
      return;
    }
    case MessageType::kRouteAsk:
      return Dispatch<protocol::RouteAsk>(in.peer, env->body, "RouteAsk", handlers_.route_asked);
    case MessageType::kRouteAnswer:
      return Dispatch<protocol::RouteAnswer>(in.peer, env->body, "RouteAnswer",
                                             handlers_.route_answered);
    case MessageType::kPeerActorGone:
      return Dispatch<protocol::PeerActorGone>(in.peer, env->body, "PeerActorGone",
                                               handlers_.actor_gone);
    case MessageType::kLeaseAsk:
      return Dispatch<protocol::LeaseAsk>(in.peer, env->body, "LeaseAsk", handlers_.lease_asked);
    case MessageType::kLeaseAnswer:
      return Dispatch<protocol::LeaseAnswer>(in.peer, env->body, "LeaseAnswer",
                                             handlers_.lease_answered);
    case MessageType::kPeerLeaseGone:
      return Dispatch<protocol::PeerLeaseGone>(in.peer, env->body, "PeerLeaseGone",
                                               handlers_.lease_gone);
    case MessageType::kTaskFinished:
      return Dispatch<protocol::TaskFinished>(in.peer, env->body, "TaskFinished",
                                              handlers_.task_finished);
    // (Said for the sender's own node only: its identity begins with its node id.)
    case MessageType::kPeerHolds:
      return Dispatch<protocol::PeerHolds>(in.peer, env->body, "PeerHolds",
                                           FromSender<protocol::PeerHolds>(in.peer, handlers_.holds));
    case MessageType::kPeerHoldsAck:
      return Dispatch<protocol::PeerHoldsAck>(
          in.peer, env->body, "PeerHoldsAck",
          FromSender<protocol::PeerHoldsAck>(in.peer, handlers_.holds_acked));
    default:
      RAY_LOG_WARN("dropped peer message type {} from {}", static_cast<int>(env->type),
                   ToHex(in.peer));
  }
}

void ObjectManager::HandleChunk(const std::string& sender, const std::string& frame,
                                const zmq::message_t& part) {
  auto env = protocol::DecodeEnvelope(frame);
  if (env.ok() && env->type == MessageType::kPullElsewhere) {
    auto m = protocol::DecodeBody<protocol::PullElsewhere>(env->body, "PullElsewhere");
    if (m.ok()) return PullElsewhere(sender, *m);
    RAY_LOG_WARN("peer {}: {}", ToHex(sender), m.status().message());
    return;
  }
  if (!env.ok() || env->type != MessageType::kObjectChunk) {
    RAY_LOG_WARN("dropped an unexpected reply from a peer");
    return;
  }
  auto chunk = protocol::DecodeBody<protocol::ObjectChunk>(env->body, "ObjectChunk");
  if (!chunk.ok()) {
    RAY_LOG_WARN("dropped an object chunk: {}", chunk.status().message());
    return;
  }
  const ObjectId id = chunk->object_id;
  auto it = pulls_.find(id);
  if (it == pulls_.end()) return;  // forgotten (peer declared dead) or a duplicate
  Transfer& pull = it->second;
  if (sender != pull.node_id) {
    // (Not the node it is pulled from now: another peer's, or the first source's
    // before it sent the pull elsewhere.)
    RAY_LOG_WARN("dropped a chunk of object {} from node {}, which it is not pulled from",
                 id.Hex(), ToHex(sender));
    return;
  }
  if (chunk->state == static_cast<uint8_t>(ObjectState::kError) && !pull.first_node.empty()) {
    // The node this pull was sent on to failed to get the object itself (its store was
    // full, say): the node first asked serves it after all.
    if (AskFor(pull.first_node, id)) {
      pull.node_id = std::exchange(pull.first_node, "");
      return;
    }
  }
  protocol::ObjectPayload payload;
  payload.id = chunk->object_id;
  payload.state = chunk->state;
  if (chunk->state != static_cast<uint8_t>(ObjectState::kShared)) {
    payload.data = std::move(chunk->data);
    std::string from = std::move(pull.node_id);
    pulls_.erase(it);
    handlers_.object_arrived(payload, from);
    return;
  }
  auto fail = [&](const Status& st) {
    RAY_LOG_ERROR("receiving object {}: {}", id.Hex(), st.message());
    std::string from = std::move(pull.node_id);
    pulls_.erase(it);
    payload.state = static_cast<uint8_t>(ObjectState::kError);
    payload.data = ray::internal::Pack(ray::internal::ErrorInfo{
        ray::internal::kSystem, "ObjectTransferError", st.message(), "", ""});
    handlers_.object_arrived(payload, from);
  };
  if (!pull.writer && chunk->offset != 0) {
    // A later chunk of an earlier transfer of it, which this node dropped as stalled
    // (TakeStalledPulls) and asked for again: the sender sent it before it read the
    // new ask, whose chunks follow from the first.
    RAY_LOG_DEBUG("dropped a stale chunk of object {} from node {}", id.Hex(), ToHex(sender));
    return;
  }
  if (!pull.writer) {
    auto w = object_store::SegmentWriter::Create(object_store::SegmentName(store_tag_, id),
                                                 chunk->total);
    if (!w.ok()) return fail(w.status());
    pull.writer = std::move(w).value();
    pull.first_chunk_ms = clock_.MonoMillis();
  }
  if (chunk->total != pull.writer->size() || chunk->offset != pull.received ||
      part.size() != std::min<uint64_t>(protocol::kChunkBytes, chunk->total - chunk->offset)) {
    return fail(Status::DataLoss("chunk out of order or of another size"));
  }
  // (A segment's chunk comes as the message's second part, uncopied: SendChunk.)
  std::string_view bytes(static_cast<const char*>(part.data()), part.size());
  if (Status st = pull.writer->Write(chunk->offset, bytes); !st.ok()) return fail(st);
  pull.received += bytes.size();
  pull.last_chunk_ms = clock_.MonoMillis();
  if (pull.received < pull.writer->size()) {
    if (auto* d = DealerFor(pull.node_id)) {
      d->Send(protocol::Encode(MessageType::kChunkAck, 0, protocol::PullObject{chunk->object_id}));
    }
    return;
  }
  (void)pull.writer->Seal();
  payload.shm_name = pull.writer->name();
  payload.size = pull.writer->size();
  int64_t now = clock_.MonoMillis();
  RAY_LOG_INFO("received object {} ({} bytes) from node {} in {} ms ({} ms after asking)",
               id.Hex(), payload.size, ToHex(pull.node_id), now - pull.first_chunk_ms,
               now - pull.started_ms);
  std::string from = std::move(pull.node_id);
  pulls_.erase(it);
  handlers_.object_arrived(payload, from);
}

void ObjectManager::PullElsewhere(const std::string& from, const protocol::PullElsewhere& m) {
  auto it = pulls_.find(m.object_id);
  // (Only the node the object is being pulled from may send the pull on, and only
  // before it sent any of it.)
  if (it == pulls_.end() || it->second.node_id != from || it->second.writer) return;
  if (m.node_id == self_.Binary() || m.node_id == from || !AskFor(m.node_id, m.object_id)) {
    AskFor(from, m.object_id);  // (not a node this one can reach: it waits its turn there)
    return;
  }
  if (it->second.first_node.empty()) it->second.first_node = from;
  it->second.node_id = m.node_id;
}

bool ObjectManager::AskFor(const std::string& node_id, const ObjectId& id) {
  auto* d = DealerFor(node_id);
  if (d) d->Send(protocol::Encode(MessageType::kPullObject, 0, protocol::PullObject{id}));
  return d != nullptr;
}

void ObjectManager::ForwardTask(const std::string& node_id, const protocol::ForwardTask& task) {
  Tell(node_id, MessageType::kForwardTask, task);
}

void ObjectManager::NotifyFinished(const std::string& node_id,
                                   const protocol::TaskFinished& finished) {
  Tell(node_id, MessageType::kTaskFinished, finished);
}

void ObjectManager::KillActor(const std::string& node_id, const protocol::ActorKill& kill) {
  Tell(node_id, MessageType::kKillActor, kill);
}

std::vector<ObjectId> ObjectManager::TakeStalledPulls() {
  const int64_t now = clock_.MonoMillis();
  return TakePullsIf([&](const ObjectId& id, const Transfer& pull) {
    if (!pull.writer || now - pull.last_chunk_ms < kStalledPullMs) return false;
    RAY_LOG_WARN("the transfer of object {} from node {} stalled: no chunk for {} ms ({} of {} "
                 "bytes came); dropped, to be pulled again",
                 id.Hex(), ToHex(pull.node_id), now - pull.last_chunk_ms, pull.received,
                 pull.writer->size());
    return true;
  });
}

bool ObjectManager::Pull(const ObjectId& id, const std::string& node_id) {
  if (pulls_.count(id) || !AskFor(node_id, id)) return false;
  pulls_[id].node_id = node_id;
  pulls_[id].started_ms = clock_.MonoMillis();
  return true;
}

void ObjectManager::Serve(const std::string& peer, const protocol::ObjectPayload& object) {
  protocol::ObjectChunk chunk;
  chunk.object_id = object.id;
  chunk.state = object.state;
  if (object.state != static_cast<uint8_t>(ObjectState::kShared)) {
    chunk.total = object.data.size();
    chunk.data = object.data;
    router_.Send(peer, protocol::Encode(MessageType::kObjectChunk, 0, chunk));
    return;
  }
  auto mapping = object_store::MapSegment(object.shm_name, object.size);
  if (!mapping.ok()) {
    chunk.state = static_cast<uint8_t>(ObjectState::kError);
    chunk.data = ray::internal::Pack(ray::internal::ErrorInfo{
        ray::internal::kObjectLost, "ObjectLostError", mapping.status().message(), "", ""});
    router_.Send(peer, protocol::Encode(MessageType::kObjectChunk, 0, chunk));
    return;
  }
  chunk.total = object.size;
  Outgoing out{std::move(mapping).value(), std::move(chunk), clock_.MonoMillis()};
  if (ActiveServes() >= kMaxActiveServes) {
    waiting_serves_.emplace_back(peer, std::move(out));
    return;
  }
  StartServe(peer, std::move(out));
}

size_t ObjectManager::ActiveServes() const {
  const int64_t now = clock_.MonoMillis();
  return std::count_if(outgoing_.begin(), outgoing_.end(), [&](const auto& o) {
    return now - o.second.acked_ms < kStalledServeMs;
  });
}

void ObjectManager::StartServe(const std::string& peer, Outgoing out) {
  out.acked_ms = clock_.MonoMillis();
  bool more = true;
  for (size_t i = 0; more && i < protocol::kChunkWindow; ++i) more = SendChunk(peer, out);
  if (more) {
    outgoing_[{peer, out.chunk.object_id}] = std::move(out);
  } else if (out.complete) {
    SendWaitingTo(out.chunk.object_id, peer);  // (an object of a window's chunks or fewer)
  }
}

void ObjectManager::ServeWaiting() {
  while (!waiting_serves_.empty() && ActiveServes() < kMaxActiveServes) {
    auto [peer, out] = std::move(waiting_serves_.front());
    waiting_serves_.pop_front();
    StartServe(peer, std::move(out));
  }
}

bool ObjectManager::SendChunk(const std::string& peer, Outgoing& out) {
  protocol::ObjectChunk& chunk = out.chunk;  // (an empty object is one empty chunk)
  size_t n = std::min<uint64_t>(protocol::kChunkBytes, chunk.total - chunk.offset);
  // The bytes go straight from the mapped segment as the message's second part (the
  // chunk's own `data` stays empty): ZeroMQ keeps the mapping until they are sent.
  bool sent = router_.SendWithPayload(peer, protocol::Encode(MessageType::kObjectChunk, 0, chunk),
                                      out.mapping->data() + chunk.offset, n, out.mapping);
  chunk.offset += n;
  out.complete = sent && chunk.offset >= chunk.total;
  return sent && chunk.offset < chunk.total;
}

void ObjectManager::Ack(const std::string& peer, const ObjectId& id) {
  auto it = outgoing_.find({peer, id});
  if (it == outgoing_.end()) return;  // every chunk went already
  it->second.acked_ms = clock_.MonoMillis();
  if (SendChunk(peer, it->second)) return;
  bool complete = it->second.complete;
  outgoing_.erase(it);
  if (complete) SendWaitingTo(id, peer);
  ServeWaiting();
}

void ObjectManager::SendWaitingTo(const ObjectId& id, const std::string& served) {
  // (A peer's identity is its node id and 4 random bytes: see DealerFor.)
  const std::string node = served.substr(0, NodeId::kSize);
  size_t sent = 0;
  for (auto w = waiting_serves_.begin(); w != waiting_serves_.end() && sent < kMaxActiveServes;) {
    if (w->second.chunk.object_id != id || w->first.rfind(node, 0) == 0) {
      ++w;
      continue;
    }
    router_.Send(w->first, protocol::Encode(MessageType::kPullElsewhere, 0,
                                            protocol::PullElsewhere{id, node}));
    w = waiting_serves_.erase(w);
    ++sent;
  }
}

}  // namespace ray::raylet
