#include "runtime/api/core_client.h"

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <unordered_set>

#include <fmt/format.h>

#include "runtime/base/logging.h"
#include "runtime/base/util.h"
#include "runtime/object_store/object_store.h"

namespace ray::core {

using protocol::MessageType;
using protocol::ObjectPayload;
using protocol::ObjectState;
namespace ri = ray::internal;

namespace {

// Tasks that may wait on one lease (beyond, they go through the raylet, which queues
// them without holding a worker), when tasks of the shape take less than
// kShortTaskMs on average.
constexpr size_t kMaxLeaseQueue = 1024;
constexpr double kShortTaskMs = 1.0;
// How long after the raylet had no worker to lease the caller asks again.
constexpr int64_t kLeaseRetryMs = 10;
// How long an idle leased worker waits for its caller's next task.
constexpr int64_t kLeaseIdleMs = 10;
// How long a task from a caller waits for the lease that lets it run.
constexpr int64_t kUnleasedWaitMs = 200;

// The monotonic deadline of a timeout (-1: none; so is one too far off to matter).
int64_t Deadline(int64_t timeout_ms) {
  constexpr int64_t kForever = int64_t{1} << 40;  // about 35 years
  return timeout_ms < 0 || timeout_ms > kForever ? -1 : MonoMillis() + timeout_ms;
}

// Milliseconds left before `deadline_ms` (monotonic; -1: none, so -1).
int Remaining(int64_t deadline_ms) {
  if (deadline_ms < 0) return -1;
  return static_cast<int>(std::clamp<int64_t>(deadline_ms - MonoMillis(), 0, INT32_MAX));
}
}  // namespace

Result<std::unique_ptr<CoreClient>> CoreClient::Connect(const std::string& raylet_endpoint,
                                                        bool is_driver, const JobId& job,
                                                        const std::string& worker_id) {
  std::unique_ptr<CoreClient> c(new CoreClient());
  std::string identity = is_driver ? RandomBytes(16) : worker_id;
  c->identity_ = identity;
  c->owned_ = std::make_unique<transport::Dealer>(identity);
  c->dealer_ = c->owned_.get();
  c->is_driver_ = is_driver;
  c->job_ = job;
  c->current_task_ = NewTaskId(job);
  RAY_RETURN_IF_ERROR(c->dealer_->Connect(raylet_endpoint));
  if (!is_driver) {
    c->direct_router_ = std::make_unique<transport::Router>();
    RAY_ASSIGN_OR_RETURN(c->direct_endpoint_, c->direct_router_->Bind(transport::WorkerEndpoint(
                                                  raylet_endpoint, worker_id)));
  }
  protocol::RegisterClient reg{identity, static_cast<int32_t>(::getpid()), is_driver,
                               job.Binary(), c->direct_endpoint_};
  c->dealer_->Send(protocol::Encode(MessageType::kRegisterClient, 0, reg));
  auto frame = c->Receive(10000);
  if (!frame) return Status::Unavailable("the raylet at " + raylet_endpoint + " did not answer");
  auto env = protocol::DecodeEnvelope(*frame);
  if (!env.ok()) return env.status();
  auto reply = protocol::DecodeBody<protocol::RegisterReply>(env->body, "RegisterReply");
  if (!reply.ok()) return reply.status();
  if (!reply->error.empty()) return Status::PermissionDenied(reply->error);
  c->node_ = std::move(reply).value();
  if (!is_driver) {  // (without it, the state API misses what this worker runs: no error)
    c->running_path_ = protocol::RunningTaskPath(c->node_.session_dir, worker_id);
    c->running_ = protocol::RunningTaskSlot::Create(c->running_path_);
  }
  return c;
}

namespace {
// Spare segments a process keeps, in bytes: beyond this, freed segments go.
constexpr size_t kMaxSpareBytes = 1ull << 30;
}  // namespace

CoreClient::~CoreClient() {
  if (is_driver_) Disconnect();
  for (const auto& segment : spare_) object_store::UnlinkSegment(segment->name());
  transport::RemoveSocketFile(direct_endpoint_);
  if (running_) ::unlink(running_path_.c_str());
}

void CoreClient::Disconnect() {
  if (disconnected_) return;
  disconnected_ = true;
  dealer_->Send(protocol::Encode(MessageType::kDisconnect, 0, std::string()));
}

void CoreClient::SetCurrentTask(const TaskId& task, const JobId& job) {
  current_task_ = task;
  job_ = job;
  put_index_ = 0;
}

std::optional<std::string> CoreClient::Receive(int timeout_ms) {
  if (inbox_.empty()) {
    if (direct_router_ || !peers_.empty()) {
      // Poll the raylet and the direct sockets together; direct frames are handled
      // here, raylet frames returned.
      // (The buffers are members: this runs for every frame, and allocates nothing.)
      std::vector<zmq::pollitem_t>& items = poll_items_;
      std::vector<DirectPeer*>& polled = polled_peers_;
      items.assign(1, {dealer_->socket().handle(), 0, ZMQ_POLLIN, 0});
      if (direct_router_) items.push_back({direct_router_->socket().handle(), 0, ZMQ_POLLIN, 0});
      polled.clear();
      for (auto& [endpoint, peer] : peers_) {
        if (!peer->dealer) continue;
        items.push_back({peer->dealer->socket().handle(), 0, ZMQ_POLLIN, 0});
        polled.push_back(peer.get());
      }
      if (zmq::poll(items, std::chrono::milliseconds(timeout_ms)) == 0) return std::nullopt;
      size_t next = 1;
      if (direct_router_ && (items[next++].revents & ZMQ_POLLIN)) {
        while (auto in = direct_router_->Recv(0)) OnDirectFrame(in->peer, in->frame);
      }
      for (size_t i = 0; i < polled.size(); ++i) {
        if (!(items[next + i].revents & ZMQ_POLLIN)) continue;
        DrainPeer(*polled[i]);  // (its dealer may go meanwhile: the worker died)
      }
      if (!(items[0].revents & ZMQ_POLLIN)) return std::nullopt;
      timeout_ms = 0;
    }
    auto frame = dealer_->Recv(timeout_ms);
    if (!frame) return std::nullopt;
    auto env = protocol::DecodeEnvelope(*frame);
    if (!env.ok() || env->type != MessageType::kBatch) return frame;
    auto frames = protocol::DecodeBatch(env->body);
    if (!frames.ok()) {
      RAY_LOG_WARN("dropped a frame from the raylet: {}", frames.status().message());
      return std::nullopt;
    }
    for (std::string_view f : *frames) inbox_.emplace_back(f);
    if (inbox_.empty()) return std::nullopt;
  }
  std::string frame = std::move(inbox_.front());
  inbox_.pop_front();
  return frame;
}

bool CoreClient::Pump(int timeout_ms) {
  if (auto frame = Receive(timeout_ms)) {
    Stash(std::move(*frame));
    return true;
  }
  return RayletAlive();
}

bool CoreClient::RayletAlive() {
  // Looked at once a second at most: Receive comes back empty-handed after every
  // direct frame, and a look costs a kill() and a read of /proc/<pid>/stat.
  if (raylet_dead_) return false;
  if (node_.raylet_pid <= 0 || MonoMillis() < next_raylet_check_ms_) return true;
  next_raylet_check_ms_ = MonoMillis() + 1000;
  raylet_dead_ = !ProcessAlive(node_.raylet_pid);
  return !raylet_dead_;
}

void CoreClient::Stash(std::string frame) {
  auto env = protocol::DecodeEnvelope(frame);
  if (!env.ok()) {
    RAY_LOG_WARN("dropped a frame from the raylet: {}", env.status().message());
    return;
  }
  if (env->request_id != 0 && abandoned_.erase(env->request_id)) return;
  switch (env->type) {
    case MessageType::kExecuteTask: {
      auto task = protocol::DecodeBody<protocol::ExecuteTask>(env->body, "ExecuteTask");
      if (task.ok()) {
        pending_tasks_.push_back(IncomingTask{std::move(task).value(), ""});
      } else {
        RAY_LOG_ERROR("dropped a task: {}", task.status().message());
      }
      break;
    }
    case MessageType::kRevokeTasks: {
      auto revoke = protocol::DecodeBody<protocol::RevokeTasks>(env->body, "RevokeTasks");
      if (!revoke.ok()) break;
      std::unordered_set<std::string> ids(revoke->task_ids.begin(), revoke->task_ids.end());
      std::erase_if(pending_tasks_, [&](const IncomingTask& t) {
        return t.reply_to.empty() && ids.count(t.task.spec.task_id) > 0;
      });
      break;
    }
    case MessageType::kExit:
      exit_requested_ = true;
      break;
    case MessageType::kActorGone: {
      auto gone = protocol::DecodeBody<protocol::ActorGone>(env->body, "ActorGone");
      if (gone.ok()) OnActorGone(*gone);
      break;
    }
    case MessageType::kLeaseGone: {
      auto gone = protocol::DecodeBody<protocol::LeaseGone>(env->body, "LeaseGone");
      if (gone.ok()) OnLeaseGone(*gone);
      break;
    }
    case MessageType::kLeaseGranted: {
      auto grant = protocol::DecodeBody<protocol::LeaseGranted>(env->body, "LeaseGranted");
      if (!grant.ok()) break;
      leased_to_ = grant->caller;
      lease_revoked_ = lease_yield_ = false;
      returned_to_.clear();
      lease_idle_ms_ = MonoMillis() + kLeaseIdleMs;
      break;
    }
    case MessageType::kRevokeLease:
      // The caller is gone: its tasks not started yet are dropped.
      std::erase_if(pending_tasks_, [&](const IncomingTask& t) { return t.reply_to == leased_to_; });
      lease_revoked_ = !leased_to_.empty();
      break;
    case MessageType::kYieldLease:
      // Tasks wait in the raylet: the caller sends nothing more here (what it sent
      // already still runs), and the lease ends as soon as the worker is idle.
      if (leased_to_.empty() || lease_revoked_ || lease_yield_) break;
      lease_yield_ = true;
      (void)direct_router_->Send(leased_to_,
                                 protocol::Encode(MessageType::kLeaseReturned, 0, std::string()));
      break;
    case MessageType::kLogLines: {
      auto lines = protocol::DecodeBody<protocol::LogLines>(env->body, "LogLines");
      if (!lines.ok()) break;
      // Each line prefixed with its source, as Ray's log_to_driver does.
      FILE* out = lines->is_stderr ? stderr : stdout;
      size_t start = 0;
      const std::string& t = lines->text;
      while (start < t.size()) {
        size_t end = t.find('\n', start);
        if (end == std::string::npos) end = t.size();
        std::fprintf(out, "(%s) %.*s\n", lines->source.c_str(), static_cast<int>(end - start),
                     t.data() + start);
        start = end + 1;
      }
      std::fflush(out);
      break;
    }
    default:
      RAY_LOG_WARN("dropped unexpected message type {}", static_cast<int>(env->type));
  }
}

Result<std::string> CoreClient::Roundtrip(MessageType type, const std::string& body,
                                          MessageType reply_type) {
  RAY_ASSIGN_OR_RETURN(auto reply, Roundtrip(type, body, reply_type, nullptr));
  return std::move(*reply);
}

Result<std::optional<std::string>> CoreClient::Roundtrip(MessageType type,
                                                         const std::string& body,
                                                         MessageType reply_type,
                                                         const std::function<bool()>& settled) {
  uint64_t id = next_request_++;
  SendWithFrees(protocol::Encode(type, id, body), /*all=*/true);
  while (true) {
    if (settled && settled()) {
      abandoned_.insert(id);
      return std::optional<std::string>();
    }
    auto frame = Receive(1000);
    if (!frame) {
      if (!RayletAlive()) {
        return Status::Unavailable("the raylet (pid " + std::to_string(node_.raylet_pid) +
                                   ") died");
      }
      continue;
    }
    auto env = protocol::DecodeEnvelope(*frame);
    if (env.ok() && env->type == reply_type && env->request_id == id) {
      return std::optional<std::string>(std::string(env->body));
    }
    Stash(std::move(*frame));
  }
}

Result<ObjectPayload> CoreClient::MakePayload(const ObjectId& id, std::string_view bytes) {
  ObjectPayload p;
  p.id = id.Binary();
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

Result<std::shared_ptr<object_store::WritableSegment>> CoreClient::WriteSegment(
    const ObjectId& id, const std::vector<std::string_view>& parts, size_t size) {
  std::string name = object_store::SegmentName(node_.store_tag, id);
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

Result<Fetched> CoreClient::Materialize(const ObjectPayload& p) {
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
      ObjectId id = ObjectId::FromBinary(p.id);
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

Result<std::vector<ObjectId>> CoreClient::Submit(const std::string& plugin,
                                                 std::string_view request) {
  auto req = protocol::DecodeBody<ri::TaskRequest>(request, "TaskRequest");
  if (!req.ok()) return req.status();
  if (req->num_returns == 0 || req->num_returns > 1000) {
    return Status::InvalidArgument("num_returns must be between 1 and 1000");
  }
  protocol::TaskSpec spec;
  TaskId task = NewTaskId(job_);
  spec.task_id = task.Binary();
  spec.job_id = job_.Binary();
  spec.kind = req->kind;
  spec.plugin = plugin;
  spec.function = std::move(req->function);
  spec.num_returns = req->num_returns;
  spec.resources = std::move(req->resources);
  spec.max_retries = req->max_retries;
  spec.max_calls = req->max_calls;
  spec.max_restarts = req->max_restarts;
  spec.actor_id = std::move(req->actor_id);
  spec.actor_name = std::move(req->actor_name);
  for (const auto& [name, amount] : spec.resources) {
    if (amount < 0) return Status::InvalidArgument("resource " + name + " is negative");
  }
  // Large values travel through the object store, not inside the task.
  for (auto& arg : req->args) {
    if (!arg.is_ref && arg.data.size() >= protocol::kInlineObjectLimit) {
      RAY_ASSIGN_OR_RETURN(ObjectId id, Put(arg.data));
      arg = ri::TaskArg{true, id.Binary()};
    }
    if (arg.is_ref && arg.data.size() != ObjectId::kSize) {
      return Status::InvalidArgument("an ObjectRef argument is not a valid object id");
    }
    if (arg.is_ref) RefEscaped(ObjectId::FromBinary(arg.data));
  }
  PromoteEscaped();
  spec.args = std::move(req->args);
  if (spec.kind == ri::kActorCreation && !spec.actor_name.empty()) {
    RAY_ASSIGN_OR_RETURN(std::string ignored,
                         Call("register_actor_name", ri::Pack(std::make_tuple(
                                                         spec.actor_name, spec.task_id))));
  }
  if (spec.kind == ri::kActorCreation) {
    // Not running yet: no use asking for its worker before the next blocking call.
    DirectActor& actor = direct_actors_[spec.task_id];
    actor.route = DirectActor::kRaylet;
    actor.asked_epoch = block_epoch_;
  }
  std::vector<ObjectId> ids;
  for (uint32_t i = 1; i <= spec.num_returns; ++i) ids.push_back(ObjectId::ForTaskReturn(task, i));
  DirectPeer* peer = spec.kind == ri::kActorTask ? DirectRoute(spec.actor_id) : LeaseFor(spec);
  if (peer) {
    for (const ObjectId& id : ids) Own(id, /*direct=*/true);
    SubmitDirect(*peer, std::move(spec));
    return ids;
  }
  SendWithFrees(protocol::Encode(MessageType::kSubmitTask, 0, spec), /*all=*/false);
  for (const ObjectId& id : ids) Own(id);
  return ids;
}

Result<ObjectId> CoreClient::Put(const std::vector<std::string_view>& parts) {
  PromoteEscaped();  // the value may hold refs to direct results
  ObjectId id = ObjectId::ForPut(current_task_, ++put_index_);
  size_t size = 0;
  for (std::string_view part : parts) size += part.size();
  protocol::PutRequest put;
  put.object.id = id.Binary();
  Own(id);
  if (size < protocol::kInlineObjectLimit) {
    put.object.state = static_cast<uint8_t>(ObjectState::kInline);
    for (std::string_view part : parts) put.object.data.append(part);
    SendWithFrees(protocol::Encode(MessageType::kPutObject, 0, put), /*all=*/false);
    cache_.Insert(id, ObjectState::kInline,
                  std::make_shared<const std::string>(std::move(put.object.data)));
    return id;
  }
  RAY_ASSIGN_OR_RETURN(auto segment, WriteSegment(id, parts, size));
  put.object.state = static_cast<uint8_t>(ObjectState::kShared);
  put.object.shm_name = segment->name();
  put.object.size = size;
  written_[id] = std::move(segment);
  // Shared-memory puts are acknowledged: the store may refuse them.
  RAY_ASSIGN_OR_RETURN(std::string body,
                       Roundtrip(MessageType::kPutObject, ri::Pack(put), MessageType::kCallReply));
  RAY_ASSIGN_OR_RETURN(auto reply, protocol::DecodeBody<protocol::CallReply>(body, "CallReply"));
  if (!reply.error.empty()) {
    written_.erase(id);  // refused: the raylet removed the segment
    return Status::ResourceExhausted(reply.error);
  }
  return id;
}

Result<std::vector<Fetched>> CoreClient::Get(const std::vector<ObjectId>& ids,
                                             int64_t timeout_ms) {
  const int64_t deadline = Deadline(timeout_ms);
  // Results of direct calls come here, not to the raylet: wait for them first.
  if (!direct_pending_.empty() && !Pump(0)) return Status::Unavailable("the raylet died");
  for (const ObjectId& id : ids) {
    while (direct_pending_.count(id) && Remaining(deadline) != 0) {
      if (!Pump(Remaining(deadline))) return Status::Unavailable("the raylet died");
    }
  }
  std::vector<Fetched> out(ids.size());
  protocol::GetRequest req;
  std::vector<size_t> asked;  // positions of the ids the raylet has
  for (size_t i = 0; i < ids.size(); ++i) {
    if (const ObjectCache::Entry* e = LocalValue(ids[i])) {
      out[i] = Fetched{e->state, e->data->data(), e->data->size(), e->data};
    } else if (!direct_pending_.count(ids[i])) {  // else still in flight: kMissing
      req.ids.push_back(ids[i].Binary());
      asked.push_back(i);
    }
  }
  if (asked.empty()) return out;
  req.timeout_ms = Remaining(deadline);
  ++block_epoch_;
  RAY_ASSIGN_OR_RETURN(std::string body,
                       Roundtrip(MessageType::kGetObjects, ri::Pack(req), MessageType::kGetReply));
  RAY_ASSIGN_OR_RETURN(auto reply, protocol::DecodeBody<protocol::GetReply>(body, "GetReply"));
  if (reply.objects.size() != asked.size()) {
    return Status::Internal("the raylet answered a Get with the wrong number of objects");
  }
  for (size_t k = 0; k < asked.size(); ++k) {
    RAY_ASSIGN_OR_RETURN(Fetched f, Materialize(reply.objects[k]));
    if (f.state == ObjectState::kInline || f.state == ObjectState::kError) {
      // Materialize keeps inline and error bytes in a std::string.
      cache_.Insert(ids[asked[k]], f.state, std::static_pointer_cast<const std::string>(f.keep));
    }
    out[asked[k]] = std::move(f);
  }
  return out;
}

const ObjectCache::Entry* CoreClient::LocalValue(const ObjectId& id) const {
  if (const ObjectCache::Entry* e = cache_.Find(id)) return e;
  auto it = direct_values_.find(id);
  return it == direct_values_.end() ? nullptr : &it->second;
}

Result<std::vector<bool>> CoreClient::Wait(const std::vector<ObjectId>& ids, size_t num,
                                           int64_t timeout_ms) {
  std::unordered_set<ObjectId, IdHash> unique(ids.begin(), ids.end());
  if (unique.size() != ids.size()) return Status::InvalidArgument("Wait: object ids must be unique");
  if (num > ids.size()) return Status::InvalidArgument("Wait: num exceeds the number of objects");
  const int64_t deadline = Deadline(timeout_ms);
  if (!direct_pending_.empty() && !Pump(0)) return Status::Unavailable("the raylet died");
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
    for (size_t i = 0; i < ids.size(); ++i) {
      ready[i] = raylet_ready[i] || LocalValue(ids[i]) != nullptr;
      if (ready[i]) {
        ++count;
      } else if (direct_pending_.count(ids[i])) {
        in_flight.push_back(i);
      } else {
        req.ids.push_back(ids[i].Binary());
        asked.push_back(i);
      }
    }
    int wait = Remaining(deadline);
    if (count >= num || (wait == 0 && asked.empty())) return answer();
    if (asked.empty()) {
      if (!Pump(wait)) return Status::Unavailable("the raylet died");
      continue;
    }
    // The raylet answers for the rest, unless a direct result arriving meanwhile
    // changes the count first (then count again).
    req.num = static_cast<uint32_t>(std::min(num - count, asked.size()));
    req.timeout_ms = wait;
    auto arrived = [&] {
      return std::any_of(in_flight.begin(), in_flight.end(),
                         [&](size_t i) { return !direct_pending_.count(ids[i]); });
    };
    ++block_epoch_;
    RAY_ASSIGN_OR_RETURN(auto body, Roundtrip(MessageType::kWaitObjects, ri::Pack(req),
                                              MessageType::kWaitReply,
                                              in_flight.empty() ? std::function<bool()>()
                                                                : std::function<bool()>(arrived)));
    if (!body) continue;
    RAY_ASSIGN_OR_RETURN(auto reply, protocol::DecodeBody<protocol::WaitReply>(*body, "WaitReply"));
    if (reply.ready.size() != asked.size()) return Status::Internal("malformed WaitReply");
    for (size_t k = 0; k < asked.size(); ++k) raylet_ready[asked[k]] = reply.ready[k];
    if (wait == 0) {  // a poll: one answer is all
      for (size_t i = 0; i < ids.size(); ++i) ready[i] = raylet_ready[i] || LocalValue(ids[i]);
      return answer();
    }
  }
}

Result<std::string> CoreClient::Call(const std::string& op, const std::string& body) {
  protocol::CallRequest req{op, body, ""};
  if (op == "profile_event") {
    // The raylet may not know what this worker runs (direct calls): say it.
    auto span = protocol::DecodeBody<std::tuple<std::string, int64_t, int64_t>>(body, op.c_str());
    if (!span.ok()) return span.status();
    req.body = ri::Pack(std::tuple_cat(
        *span, std::make_tuple(is_driver_ ? std::string() : current_task_.Binary(), job_.Binary())));
  }
  RAY_ASSIGN_OR_RETURN(std::string reply_body,
                       Roundtrip(MessageType::kCall, ri::Pack(req), MessageType::kCallReply));
  RAY_ASSIGN_OR_RETURN(auto reply,
                       protocol::DecodeBody<protocol::CallReply>(reply_body, "CallReply"));
  if (!reply.error.empty()) return Status::FailedPrecondition(reply.error);
  return std::move(reply.body);
}

std::optional<IncomingTask> CoreClient::NextTask() {
  while (true) {
    FlushTaskEvents(/*force=*/false);
    CheckUnleased();
    if (!leased_to_.empty() && pending_tasks_.empty() &&
        (lease_revoked_ || lease_yield_ || MonoMillis() >= lease_idle_ms_)) {
      if (auto frame = Receive(0)) Stash(std::move(*frame));  // a task may be on its way
      if (pending_tasks_.empty() && !leased_to_.empty()) ReturnLease();
    }
    if (!pending_tasks_.empty()) {
      IncomingTask task = std::move(pending_tasks_.front());
      pending_tasks_.pop_front();
      const protocol::TaskSpec& spec = task.task.spec;
      if (running_ && !task.reply_to.empty()) {  // the raylet does not know of it
        running_->Begin({spec.task_id, spec.job_id, spec.function, NowMillis()});
      }
      // This call may run long: the events of the calls before it go first, unless
      // more calls wait (a stream of them) or the events are recent.
      bool stale = MonoMillis() >= task_events_due_ms_ - kTaskEventsDelayMs + kTaskEventsStaleMs;
      if (pending_tasks_.empty() && stale) FlushTaskEvents(/*force=*/true);
      return task;
    }
    if (exit_requested_) {
      FlushTaskEvents(/*force=*/true);
      return std::nullopt;
    }
    int timeout = 1000;
    if (!task_events_.empty()) timeout = std::min<int>(timeout, Remaining(task_events_due_ms_));
    if (!leased_to_.empty()) timeout = std::min<int>(timeout, Remaining(lease_idle_ms_));
    if (!unleased_.empty()) timeout = std::min<int>(timeout, 5);
    auto frame = Receive(timeout);
    if (!frame) {
      if (!RayletAlive()) return std::nullopt;
      continue;
    }
    Stash(std::move(*frame));
  }
}

void CoreClient::SendTaskDone(const IncomingTask& task, const protocol::TaskDone& done) {
  PromoteEscaped();  // the results may hold refs to direct results
  if (task.reply_to.empty()) {
    SendWithFrees(protocol::Encode(MessageType::kTaskDone, 0, done), /*all=*/true);
    return;
  }
  if (running_) running_->End();
  const protocol::TaskSpec& spec = task.task.spec;
  bool failed = std::any_of(done.returns.begin(), done.returns.end(), [](const auto& r) {
    return r.state == static_cast<uint8_t>(ObjectState::kError);
  });
  if (task_events_.empty()) task_events_due_ms_ = MonoMillis() + kTaskEventsDelayMs;
  task_events_.push_back(protocol::TaskEventRecord{spec.task_id, spec.job_id, spec.function,
                                                   done.start_ms, done.end_ms, failed});
  // A call that ran a while (the raylet may have reported it RUNNING) is reported
  // before its caller hears of it, which may end the job and this worker with it.
  FlushTaskEvents(/*force=*/done.end_ms - done.start_ms >= kTaskEventsLongMs);
  // A caller that went away misses its answer; nothing else needs it.
  (void)direct_router_->Send(task.reply_to, protocol::Encode(MessageType::kTaskDone, 0, done));
  if (task.reply_to == leased_to_) lease_idle_ms_ = MonoMillis() + kLeaseIdleMs;
}

void CoreClient::FlushTaskEvents(bool force) {
  if (task_events_.empty()) return;
  if (!force && task_events_.size() < kMaxTaskEvents && MonoMillis() < task_events_due_ms_) return;
  protocol::TaskEvents events{std::move(task_events_)};
  task_events_.clear();
  SendWithFrees(protocol::Encode(MessageType::kTaskEvents, 0, events), /*all=*/false);
}

void CoreClient::Own(const ObjectId& id, bool direct) {
  std::lock_guard<std::mutex> lock(refs_mu_);
  refs_.try_emplace(id).first->second.direct = direct;
}

void CoreClient::RefDelta(const ObjectId& id, int32_t delta) {
  std::lock_guard<std::mutex> lock(refs_mu_);
  auto it = refs_.find(id);
  if (it == refs_.end()) return;  // not made here: its owner decides
  it->second.refs += delta;
  if (it->second.refs <= 0 && !it->second.escaped) unreferenced_.push_back(id);
}

void CoreClient::RefEscaped(const ObjectId& id) {
  std::lock_guard<std::mutex> lock(refs_mu_);
  auto it = refs_.find(id);
  if (it == refs_.end() || it->second.escaped) return;
  it->second.escaped = true;
  if (it->second.direct) to_promote_.push_back(id);
}

protocol::FreeObjects CoreClient::TakeFrees(bool all) {
  protocol::FreeObjects frees;
  std::vector<ObjectId> ids;
  {
    std::lock_guard<std::mutex> lock(refs_mu_);
    // Small frees gather (a put-and-drop loop then costs little).
    if (unreferenced_.empty() || (!all && unreferenced_.size() < 256)) return frees;
    for (const ObjectId& id : unreferenced_) {
      // Only if still unreferenced: a raw id may have become an ObjectRef again.
      auto it = refs_.find(id);
      if (it == refs_.end() || it->second.refs > 0 || it->second.escaped) continue;
      refs_.erase(it);
      ids.push_back(id);
    }
    unreferenced_.clear();
  }
  for (const ObjectId& id : ids) {
    // Direct results the raylet never saw go here alone (one still in flight is
    // dropped when it comes).
    if (direct_pending_.erase(id) || direct_values_.erase(id)) continue;
    frees.ids.push_back(id.Binary());
    cache_.Erase(id);
    auto w = written_.find(id);
    if (w == written_.end()) continue;
    // Kept as a spare only if nothing here still reads it (no other process can:
    // the id never left this one).
    if (w->second.use_count() == 1 && spare_bytes_ + w->second->size() <= kMaxSpareBytes) {
      spare_bytes_ += w->second->size();
      spare_.push_back(std::move(w->second));
      frees.keep_segments.push_back(id.Binary());
    }
    written_.erase(w);
  }
  return frees;
}

void CoreClient::SendWithFrees(std::string frame, bool all) {
  protocol::FreeObjects frees = TakeFrees(all);
  if (frees.ids.empty()) {
    dealer_->Send(frame);
  } else {
    dealer_->Send(protocol::EncodeBatch(
        {protocol::Encode(MessageType::kFreeObjects, 0, frees), std::move(frame)}));
  }
}

// ---------------------------------------------------------------------------
// Direct calls.
//
// Actors: a caller asks its raylet for an actor's direct endpoint before its first
// call, and again after a blocking Get or Wait while the answer is "not now". The
// raylet says yes only for an actor alive on this node with none of this caller's
// calls still queued or running there, so that calls keep their order when the route
// changes. When the actor's worker goes, the raylet sends ActorGone: calls in flight
// fail, and later ones go through the raylet (which restarts the actor, or fails
// them).
//
// Normal tasks whose arguments are all here: a caller asks its raylet to lease it an
// idle worker for the task's resource shape (the worker holds them meanwhile), and
// sends tasks straight to it: to an idle lease, else a new one. When the raylet has
// no resources left for another, short tasks queue on the caller's leases and long
// ones go through the raylet. The worker returns the lease once it has been
// idle for kLeaseIdleMs (telling the caller; tasks that cross that on the way are
// bounced back, and go through the raylet). If the worker dies, the raylet sends
// LeaseGone and the tasks in flight go through the raylet, with one retry fewer.


CoreClient::DirectPeer& CoreClient::PeerAt(const std::string& endpoint) {
  std::unique_ptr<DirectPeer>& peer = peers_[endpoint];
  if (!peer || !peer->dealer) {
    // Named as on the raylet's socket: a worker knows its lease holder by that name.
    auto dealer = std::make_unique<transport::Dealer>(identity_);
    if (!dealer->Connect(endpoint).ok()) RAY_LOG_WARN("cannot connect to {}", endpoint);
    if (!peer) peer = std::make_unique<DirectPeer>();
    peer->endpoint = endpoint;
    peer->dealer = std::move(dealer);
  }
  return *peer;
}

CoreClient::DirectPeer* CoreClient::DirectRoute(const std::string& actor_id) {
  DirectActor& actor = direct_actors_[actor_id];
  if (actor.route == DirectActor::kDirect) return actor.peer;
  if (actor.route == DirectActor::kNever ||
      (actor.route == DirectActor::kRaylet && actor.asked_epoch == block_epoch_)) {
    return nullptr;
  }
  actor.asked_epoch = block_epoch_;
  actor.route = DirectActor::kRaylet;
  auto endpoint = Call("actor_endpoint", actor_id);
  if (!endpoint.ok() || endpoint->empty()) return nullptr;
  if (*endpoint == "remote") {  // lives on another node: always through the raylets
    actor.route = DirectActor::kNever;
    return nullptr;
  }
  actor.peer = &PeerAt(*endpoint);
  actor.route = DirectActor::kDirect;
  return actor.peer;
}

CoreClient::DirectPeer* CoreClient::LeaseFor(const protocol::TaskSpec& spec) {
  if (spec.kind != ri::kNormalTask || spec.max_calls != 0 || spec.resources.count("GPU")) {
    return nullptr;  // GPU ids and max_calls are per task: the raylet hands those out
  }
  for (const auto& arg : spec.args) {
    if (!arg.is_ref) continue;
    ObjectId id = ObjectId::FromBinary(arg.data);
    if (!LocalValue(id) && !written_.count(id)) return nullptr;  // the raylet waits for it
  }
  std::string shape = ri::Pack(spec.resources);
  LeasePool& pool = leases_[shape];
  auto least_busy = [&] {
    DirectPeer* least = nullptr;
    for (DirectPeer* w : pool.workers) {
      if (!least || w->inflight.size() < least->inflight.size()) least = w;
    }
    return least;
  };
  DirectPeer* least = least_busy();
  if (least && least->inflight.empty() && MonoMillis() - least->idle_since_ms >= kLeaseIdleMs / 2) {
    // Idle for a while: its worker may have returned the lease. Read what came.
    if (!Pump(0)) return nullptr;
    least = least_busy();
  }
  if (least && least->inflight.empty()) return least;
  if (pool.denied_ms < 0 || MonoMillis() - pool.denied_ms >= kLeaseRetryMs) {
    auto endpoint = Call("lease_worker", ri::Pack(std::make_tuple(spec.resources, spec.job_id)));
    if (endpoint.ok() && !endpoint->empty() && *endpoint != "busy") {
      DirectPeer& w = PeerAt(*endpoint);
      w.lease = shape;
      w.idle_since_ms = MonoMillis();
      pool.workers.push_back(&w);
      pool.denied_ms = -1;
      return &w;
    }
    pool.denied_ms = MonoMillis();
    pool.busy = endpoint.ok() && *endpoint == "busy";
  }
  // Every resource is taken: short tasks queue behind ours on our leases (their
  // workers start the next without a round trip); long ones wait in the raylet's
  // queue for whichever worker frees first.
  bool short_tasks = pool.task_ms >= 0 && pool.task_ms < kShortTaskMs;
  if (pool.busy && short_tasks && least && least->inflight.size() < kMaxLeaseQueue) return least;
  return nullptr;
}

void CoreClient::SubmitDirect(DirectPeer& peer, protocol::TaskSpec spec) {
  protocol::ExecuteTask task;
  // Arguments held here travel with the call; the worker fetches the rest itself.
  for (const auto& arg : spec.args) {
    if (!arg.is_ref) continue;
    ObjectId id = ObjectId::FromBinary(arg.data);
    ObjectPayload& p = task.resolved.emplace_back();
    p.id = arg.data;
    if (const ObjectCache::Entry* e = LocalValue(id)) {
      p.state = static_cast<uint8_t>(e->state);
      p.data = *e->data;
    } else if (auto w = written_.find(id); w != written_.end()) {
      p.state = static_cast<uint8_t>(ObjectState::kShared);
      p.shm_name = w->second->name();
      p.size = w->second->size();
    }
  }
  DirectCall& call = peer.inflight[spec.task_id];
  call.function = spec.function;
  TaskId tid = TaskId::FromBinary(spec.task_id);
  for (uint32_t i = 1; i <= spec.num_returns; ++i) {
    call.returns.push_back(ObjectId::ForTaskReturn(tid, i));
    direct_pending_.insert(call.returns.back());
  }
  spec.caller = identity_;
  if (spec.kind == ri::kNormalTask) call.spec = spec;
  task.spec = std::move(spec);
  peer.dealer->Send(protocol::Encode(MessageType::kExecuteTask, 0, task));
  // Frees gather here as for raylet submissions (fire-and-forget loops stay bounded).
  protocol::FreeObjects frees = TakeFrees(/*all=*/false);
  if (!frees.ids.empty()) dealer_->Send(protocol::Encode(MessageType::kFreeObjects, 0, frees));
}

void CoreClient::OnPeerFrame(DirectPeer& peer, std::string_view frame) {
  auto env = protocol::DecodeEnvelope(frame);
  if (!env.ok()) {
    RAY_LOG_WARN("dropped a frame from worker {}: {}", peer.endpoint, env.status().message());
    return;
  }
  switch (env->type) {
    case MessageType::kTaskDone: {
      auto done = protocol::DecodeBody<protocol::TaskDone>(env->body, "TaskDone");
      if (done.ok()) return OnDirectDone(peer, std::move(done).value());
      RAY_LOG_WARN("dropped an answer from worker {}: {}", peer.endpoint, done.status().message());
      return;
    }
    case MessageType::kTaskBounced: {  // body: the task id, raw
      auto call = peer.inflight.find(std::string(env->body));
      if (call == peer.inflight.end()) {
        RAY_LOG_WARN("worker {} bounced a task not in flight", peer.endpoint);
        return;
      }
      DirectCall bounced = std::move(call->second);
      peer.inflight.erase(call);
      EndLease(peer);  // it ran no task of ours: the lease is over
      Resubmit(std::move(bounced));
      return;
    }
    case MessageType::kLeaseReturned:
      EndLease(peer);
      return;
    default:
      RAY_LOG_WARN("dropped message type {} from worker {}", static_cast<int>(env->type),
                   peer.endpoint);
  }
}

void CoreClient::OnDirectDone(DirectPeer& peer, protocol::TaskDone done) {
  auto call = peer.inflight.find(done.task_id);
  if (call == peer.inflight.end()) {
    RAY_LOG_WARN("dropped an answer from worker {}: not a call in flight", peer.endpoint);
    return;
  }
  std::vector<ObjectId> returns = std::move(call->second.returns);
  peer.inflight.erase(call);
  if (peer.inflight.empty()) peer.idle_since_ms = MonoMillis();
  if (!peer.lease.empty() && done.end_ms >= done.start_ms) {
    double& task_ms = leases_[peer.lease].task_ms;
    double ms = static_cast<double>(done.end_ms - done.start_ms);
    task_ms = task_ms < 0 ? ms : 0.9 * task_ms + 0.1 * ms;
  }
  for (ObjectPayload& p : done.returns) {
    if (p.id.size() != ObjectId::kSize ||
        std::find(returns.begin(), returns.end(), ObjectId::FromBinary(p.id)) == returns.end()) {
      RAY_LOG_WARN("dropped a result from worker {} that its call does not return", peer.endpoint);
      continue;
    }
    ObjectId id = ObjectId::FromBinary(p.id);
    bool shared = p.state == static_cast<uint8_t>(ObjectState::kShared);
    if (!direct_pending_.erase(id)) {  // freed while in flight
      if (shared) object_store::UnlinkSegment(p.shm_name);
      continue;
    }
    if (shared) {
      // Large results live in the raylet's store, like any task's.
      protocol::PutRequest put{std::move(p)};
      dealer_->Send(protocol::Encode(MessageType::kPutObject, 0, put));
      continue;
    }
    direct_values_[id] = ObjectCache::Entry{static_cast<ObjectState>(p.state),
                                            std::make_shared<const std::string>(std::move(p.data))};
  }
  // A result missing from the answer is an error, not a wait forever.
  FailResults(returns, ri::ErrorInfo{ri::kSystem, "ray::Internal",
                                     "the worker's answer lacked this result", "", ""});
}

void CoreClient::FailResults(const std::vector<ObjectId>& returns, const ri::ErrorInfo& e) {
  std::shared_ptr<const std::string> error;
  for (const ObjectId& id : returns) {
    if (!direct_pending_.erase(id)) continue;  // arrived, or freed
    if (!error) error = std::make_shared<const std::string>(ri::Pack(e));
    direct_values_[id] = ObjectCache::Entry{ObjectState::kError, error};
  }
}

void CoreClient::DrainPeer(DirectPeer& peer) {
  while (peer.dealer) {
    auto frame = peer.dealer->Recv(0);
    if (!frame) break;
    OnPeerFrame(peer, *frame);
  }
}

void CoreClient::OnActorGone(const protocol::ActorGone& gone) {
  auto it = direct_actors_.find(gone.actor_id);
  if (it == direct_actors_.end() || it->second.route != DirectActor::kDirect) return;
  DirectActor& actor = it->second;
  DirectPeer& peer = *actor.peer;
  actor.route = DirectActor::kRaylet;
  actor.asked_epoch = block_epoch_;
  actor.peer = nullptr;
  DrainPeer(peer);  // answers the worker sent before it went still count
  for (const auto& [task, call] : peer.inflight) {
    FailResults(call.returns,
                ri::ErrorInfo{ri::kActorDied, "ActorDiedError",
                              fmt::format("actor method {} did not finish: {}", call.function,
                                          gone.cause),
                              call.function, ""});
  }
  peer.inflight.clear();
  peer.dealer.reset();
}

void CoreClient::OnLeaseGone(const protocol::LeaseGone& gone) {
  auto it = peers_.find(gone.endpoint);
  if (it == peers_.end()) return;
  DirectPeer& peer = *it->second;
  DrainPeer(peer);  // answers sent before the worker died still count
  EndLease(peer);
  peer.dealer.reset();
  auto lost = std::move(peer.inflight);
  peer.inflight.clear();
  for (auto& [task, call] : lost) {
    if (call.spec && call.spec->max_retries != 0) {
      if (call.spec->max_retries > 0) --call.spec->max_retries;
      RAY_LOG_WARN("the worker running {} died ({}); retrying ({} retries left)", call.function,
                   gone.cause, call.spec->max_retries);
      Resubmit(std::move(call));
      continue;
    }
    FailResults(call.returns,
                ri::ErrorInfo{ri::kWorkerCrashed, "WorkerCrashedError",
                              fmt::format("the worker running task {} died unexpectedly ({}) and "
                                          "no retries are left",
                                          call.function, gone.cause),
                              call.function, ""});
  }
}

void CoreClient::EndLease(DirectPeer& peer) {
  if (peer.lease.empty()) return;
  LeasePool& pool = leases_[peer.lease];
  std::erase(pool.workers, &peer);
  pool.denied_ms = -1;
  peer.lease.clear();
  // Tasks sent after the worker let the lease go come back bounced; any others in
  // flight still complete.
}

void CoreClient::Resubmit(DirectCall call) {
  if (!call.spec) return;
  // The raylet has the results from now on.
  for (const ObjectId& id : call.returns) direct_pending_.erase(id);
  {
    std::lock_guard<std::mutex> lock(refs_mu_);
    for (const ObjectId& id : call.returns) {
      if (auto it = refs_.find(id); it != refs_.end()) it->second.direct = false;
    }
  }
  SendWithFrees(protocol::Encode(MessageType::kSubmitTask, 0, *call.spec), /*all=*/false);
}

void CoreClient::PromoteEscaped() {
  std::vector<ObjectId> ids;
  {
    std::lock_guard<std::mutex> lock(refs_mu_);
    if (to_promote_.empty()) return;
    ids.swap(to_promote_);
  }
  for (const ObjectId& id : ids) {
    while (direct_pending_.count(id)) {
      if (!Pump(1000)) return;  // the raylet died: nothing to give the object to
    }
    auto v = direct_values_.find(id);
    if (v == direct_values_.end()) continue;  // the raylet has it already
    protocol::PutRequest put;
    put.object.id = id.Binary();
    put.object.state = static_cast<uint8_t>(v->second.state);
    put.object.data = *v->second.data;
    dealer_->Send(protocol::Encode(MessageType::kPutObject, 0, put));
  }
}

void CoreClient::OnDirectFrame(const std::string& caller, std::string_view frame) {
  auto env = protocol::DecodeEnvelope(frame);
  auto task = env.ok() && env->type == MessageType::kExecuteTask
                  ? protocol::DecodeBody<protocol::ExecuteTask>(env->body, "ExecuteTask")
                  : Result<protocol::ExecuteTask>(Status::InvalidArgument("not an ExecuteTask"));
  Status valid = task.ok() ? protocol::CheckTaskSpec(task->spec) : task.status();
  if (valid.ok() && task->spec.kind == ri::kActorCreation) {
    valid = Status::InvalidArgument("actors are created through the raylet");
  }
  if (valid.ok()) {
    size_t refs = std::count_if(task->spec.args.begin(), task->spec.args.end(),
                                [](const auto& a) { return a.is_ref; });
    if (refs != task->resolved.size()) valid = Status::InvalidArgument("arguments missing");
  }
  if (!valid.ok()) {
    RAY_LOG_WARN("dropped a direct call from {}: {}", ToHex(caller), valid.message());
    return;
  }
  task->plugin_path.clear();  // found by the worker (actor methods: the actor's plugin)
  IncomingTask in{std::move(task).value(), caller};
  if (in.task.spec.kind == ri::kActorTask || caller == leased_to_) {
    pending_tasks_.push_back(std::move(in));
  } else {
    unleased_.push_back(Unleased{std::move(in), MonoMillis()});
  }
}

void CoreClient::CheckUnleased() {
  while (!unleased_.empty()) {
    Unleased& u = unleased_.front();
    if (u.task.reply_to == leased_to_) {
      pending_tasks_.push_back(std::move(u.task));
    } else if (MonoMillis() - u.arrived_ms >= kUnleasedWaitMs || !leased_to_.empty() ||
               u.task.reply_to == returned_to_) {
      Bounce(u.task.reply_to, u.task.task.spec.task_id);
    } else {
      return;  // the oldest may still be let in: so may those behind it
    }
    unleased_.pop_front();
  }
}

void CoreClient::Bounce(const std::string& caller, const std::string& task_id) {
  // The body is the raw task id.
  (void)direct_router_->Send(caller, protocol::Encode(MessageType::kTaskBounced, 0, task_id));
}

void CoreClient::ReturnLease() {
  FlushTaskEvents(/*force=*/true);
  if (!lease_revoked_ && !lease_yield_) {
    (void)direct_router_->Send(leased_to_,
                               protocol::Encode(MessageType::kLeaseReturned, 0, std::string()));
  }
  SendWithFrees(protocol::Encode(MessageType::kReturnLease, 0, std::string()), /*all=*/true);
  returned_to_ = leased_to_;
  leased_to_.clear();
  lease_revoked_ = lease_yield_ = false;
}

}  // namespace ray::core
