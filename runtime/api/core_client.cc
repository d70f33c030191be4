#include "runtime/api/core_client.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <unordered_set>

#include "runtime/base/logging.h"
#include "runtime/base/util.h"
#include "runtime/object_store/object_store.h"

namespace ray::core {

using protocol::MessageType;
using protocol::ObjectPayload;
using protocol::ObjectState;
namespace ri = ray::internal;

Result<std::unique_ptr<CoreClient>> CoreClient::Connect(const std::string& raylet_endpoint,
                                                        bool is_driver, const JobId& job,
                                                        const std::string& worker_id) {
  std::unique_ptr<CoreClient> c(new CoreClient());
  std::string identity = is_driver ? RandomBytes(16) : worker_id;
  c->owned_ = std::make_unique<transport::Dealer>(identity);
  c->dealer_ = c->owned_.get();
  c->is_driver_ = is_driver;
  c->job_ = job;
  c->current_task_ = NewTaskId(job);
  RAY_RETURN_IF_ERROR(c->dealer_->Connect(raylet_endpoint));
  protocol::RegisterClient reg{identity, static_cast<int32_t>(::getpid()), is_driver,
                               job.Binary()};
  c->dealer_->Send(protocol::Encode(MessageType::kRegisterClient, 0, reg));
  auto frame = c->Receive(10000);
  if (!frame) return Status::Unavailable("the raylet at " + raylet_endpoint + " did not answer");
  auto env = protocol::DecodeEnvelope(*frame);
  if (!env.ok()) return env.status();
  auto reply = protocol::DecodeBody<protocol::RegisterReply>(env->body, "RegisterReply");
  if (!reply.ok()) return reply.status();
  if (!reply->error.empty()) return Status::PermissionDenied(reply->error);
  c->node_ = std::move(reply).value();
  return c;
}

namespace {
// Spare segments a process keeps, in bytes: beyond this, freed segments go.
constexpr size_t kMaxSpareBytes = 1ull << 30;
}  // namespace

CoreClient::~CoreClient() {
  if (is_driver_) Disconnect();
  for (const auto& segment : spare_) object_store::UnlinkSegment(segment->name());
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

void CoreClient::Stash(std::string frame) {
  auto env = protocol::DecodeEnvelope(frame);
  if (!env.ok()) {
    RAY_LOG_WARN("dropped a frame from the raylet: {}", env.status().message());
    return;
  }
  switch (env->type) {
    case MessageType::kExecuteTask: {
      auto task = protocol::DecodeBody<protocol::ExecuteTask>(env->body, "ExecuteTask");
      if (task.ok()) {
        pending_tasks_.push_back(std::move(task).value());
      } else {
        RAY_LOG_ERROR("dropped a task: {}", task.status().message());
      }
      break;
    }
    case MessageType::kRevokeTasks: {
      auto revoke = protocol::DecodeBody<protocol::RevokeTasks>(env->body, "RevokeTasks");
      if (!revoke.ok()) break;
      std::unordered_set<std::string> ids(revoke->task_ids.begin(), revoke->task_ids.end());
      std::erase_if(pending_tasks_, [&](const protocol::ExecuteTask& t) {
        return ids.count(t.spec.task_id) > 0;
      });
      break;
    }
    case MessageType::kExit:
      exit_requested_ = true;
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
  uint64_t id = next_request_++;
  SendWithFrees(protocol::Encode(type, id, body), /*all=*/true);
  while (true) {
    auto frame = Receive(1000);
    if (!frame) {
      if (node_.raylet_pid > 0 && !ProcessAlive(node_.raylet_pid)) {
        return Status::Unavailable("the raylet (pid " + std::to_string(node_.raylet_pid) +
                                   ") died");
      }
      continue;
    }
    auto env = protocol::DecodeEnvelope(*frame);
    if (env.ok() && env->type == reply_type && env->request_id == id) {
      return std::string(env->body);
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
  spec.args = std::move(req->args);
  if (spec.kind == ri::kActorCreation && !spec.actor_name.empty()) {
    RAY_ASSIGN_OR_RETURN(std::string ignored,
                         Call("register_actor_name", ri::Pack(std::make_tuple(
                                                         spec.actor_name, spec.task_id))));
  }
  SendWithFrees(protocol::Encode(MessageType::kSubmitTask, 0, spec), /*all=*/false);
  std::vector<ObjectId> ids;
  for (uint32_t i = 1; i <= spec.num_returns; ++i) {
    ids.push_back(ObjectId::ForTaskReturn(task, i));
    Own(ids.back());
  }
  return ids;
}

Result<ObjectId> CoreClient::Put(const std::vector<std::string_view>& parts) {
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
  std::vector<Fetched> out(ids.size());
  protocol::GetRequest req;
  std::vector<size_t> asked;  // positions of the ids not in the cache
  for (size_t i = 0; i < ids.size(); ++i) {
    if (const ObjectCache::Entry* e = cache_.Find(ids[i])) {
      out[i] = Fetched{e->state, e->data->data(), e->data->size(), e->data};
    } else {
      req.ids.push_back(ids[i].Binary());
      asked.push_back(i);
    }
  }
  if (asked.empty()) return out;
  req.timeout_ms = timeout_ms;
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

Result<std::vector<bool>> CoreClient::Wait(const std::vector<ObjectId>& ids, size_t num,
                                           int64_t timeout_ms) {
  std::unordered_set<ObjectId, IdHash> unique(ids.begin(), ids.end());
  if (unique.size() != ids.size()) return Status::InvalidArgument("Wait: object ids must be unique");
  if (num > ids.size()) return Status::InvalidArgument("Wait: num exceeds the number of objects");
  std::vector<bool> out(ids.size());
  size_t taken = 0;
  if (std::all_of(ids.begin(), ids.end(), [&](const ObjectId& id) { return cache_.Find(id); })) {
    for (size_t i = 0; i < ids.size(); ++i) out[i] = taken++ < num;
    return out;
  }
  protocol::WaitRequest req;
  for (const auto& id : ids) req.ids.push_back(id.Binary());
  req.num = static_cast<uint32_t>(num);
  req.timeout_ms = timeout_ms;
  RAY_ASSIGN_OR_RETURN(std::string body, Roundtrip(MessageType::kWaitObjects, ri::Pack(req),
                                                   MessageType::kWaitReply));
  RAY_ASSIGN_OR_RETURN(auto reply, protocol::DecodeBody<protocol::WaitReply>(body, "WaitReply"));
  if (reply.ready.size() != ids.size()) return Status::Internal("malformed WaitReply");
  // Report at most `num` ready, in input order (Ray's contract).
  for (size_t i = 0; i < ids.size(); ++i) out[i] = reply.ready[i] && taken++ < num;
  return out;
}

Result<std::string> CoreClient::Call(const std::string& op, const std::string& body) {
  protocol::CallRequest req{op, body, ""};
  RAY_ASSIGN_OR_RETURN(std::string reply_body,
                       Roundtrip(MessageType::kCall, ri::Pack(req), MessageType::kCallReply));
  RAY_ASSIGN_OR_RETURN(auto reply,
                       protocol::DecodeBody<protocol::CallReply>(reply_body, "CallReply"));
  if (!reply.error.empty()) return Status::FailedPrecondition(reply.error);
  return std::move(reply.body);
}

std::optional<protocol::ExecuteTask> CoreClient::NextTask() {
  while (true) {
    if (!pending_tasks_.empty()) {
      protocol::ExecuteTask task = std::move(pending_tasks_.front());
      pending_tasks_.pop_front();
      return task;
    }
    if (exit_requested_) return std::nullopt;
    auto frame = Receive(1000);
    if (!frame) {
      if (node_.raylet_pid > 0 && !ProcessAlive(node_.raylet_pid)) return std::nullopt;
      continue;
    }
    Stash(std::move(*frame));
  }
}

void CoreClient::SendTaskDone(const protocol::TaskDone& done) {
  SendWithFrees(protocol::Encode(MessageType::kTaskDone, 0, done), /*all=*/true);
}

void CoreClient::Own(const ObjectId& id) {
  std::lock_guard<std::mutex> lock(refs_mu_);
  refs_.try_emplace(id);
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
  if (it != refs_.end()) it->second.escaped = true;
}

void CoreClient::SendWithFrees(std::string frame, bool all) {
  protocol::FreeObjects frees;
  {
    std::lock_guard<std::mutex> lock(refs_mu_);
    // Small frees gather (a put-and-drop loop then costs little); they travel in
    // the same message as the frame.
    if (unreferenced_.empty() || (!all && unreferenced_.size() < 256)) {
      dealer_->Send(frame);
      return;
    }
    for (const ObjectId& id : unreferenced_) {
      // Only if still unreferenced: a raw id may have become an ObjectRef again.
      auto it = refs_.find(id);
      if (it == refs_.end() || it->second.refs > 0 || it->second.escaped) continue;
      refs_.erase(it);
      frees.ids.push_back(id.Binary());
    }
    unreferenced_.clear();
  }
  for (const auto& bin : frees.ids) {
    ObjectId id = ObjectId::FromBinary(bin);
    cache_.Erase(id);
    auto w = written_.find(id);
    if (w == written_.end()) continue;
    // Kept as a spare only if nothing here still reads it (no other process can:
    // the id never left this one).
    if (w->second.use_count() == 1 && spare_bytes_ + w->second->size() <= kMaxSpareBytes) {
      spare_bytes_ += w->second->size();
      spare_.push_back(std::move(w->second));
      frees.keep_segments.push_back(bin);
    }
    written_.erase(w);
  }
  if (frees.ids.empty()) {
    dealer_->Send(frame);
  } else {
    dealer_->Send(protocol::EncodeBatch(
        {protocol::Encode(MessageType::kFreeObjects, 0, frees), std::move(frame)}));
  }
}

}  // namespace ray::core
