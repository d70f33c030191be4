#include "runtime/api/core_client.h"

#include <unistd.h>

#include <cstdio>

#include "runtime/base/util.h"

namespace ray::core {

using protocol::MessageType;
namespace ri = ray::internal;

Result<std::unique_ptr<CoreClient>> CoreClient::Connect(const std::string& raylet_endpoint,
                                                        bool is_driver, const JobId& job,
                                                        const std::string& worker_id,
                                                        const std::string& direct_endpoint,
                                                        WorkerParts* worker_parts) {
  std::unique_ptr<CoreClient> c(new CoreClient());
  protocol::RegisterClient reg{is_driver ? RandomBytes(16) : worker_id,
                               static_cast<int32_t>(::getpid()), is_driver, job,
                               direct_endpoint};
  RAY_ASSIGN_OR_RETURN(c->raylet_, RayletConnection::Connect(raylet_endpoint, reg));
  c->raylet_->SetLock(c->lock_.get());
  c->objects_ = std::make_unique<ObjectClient>(c->raylet_.get(), &c->refs_);
  c->submitter_ = std::make_unique<TaskSubmitter>(c->raylet_.get(), c->objects_.get(), &c->refs_);
  c->raylet_->OnMessage<protocol::LogLines>(MessageType::kLogLines, "LogLines", &PrintLogLines);
  c->is_driver_ = is_driver;
  NodeId node = NodeId::FromBinary(c->raylet_->node().node_id);
  c->contexts_.SetNode(node);
  c->SetCurrentTask(NewTaskId(job, node), job);
  if (worker_parts) *worker_parts = WorkerParts{c->raylet_.get(), c->objects_.get()};
  return c;
}

CoreClient::~CoreClient() {
  if (is_driver_) Disconnect();
}

void CoreClient::Disconnect() {
  std::lock_guard<ClientLock> hold(*lock_);
  if (disconnected_) return;
  disconnected_ = true;
  raylet_->Send(protocol::Encode(MessageType::kDisconnect, 0, std::string()));
}

void CoreClient::SetCurrentTask(const TaskId& task, const JobId& job) {
  std::lock_guard<ClientLock> hold(*lock_);
  contexts_.Set(task, job);
}

Result<std::vector<ObjectId>> CoreClient::Submit(const std::string& plugin,
                                                 std::string_view request) {
  std::lock_guard<ClientLock> hold(*lock_);
  submitter_->SetJob(contexts_.Current().job);
  return submitter_->Submit(plugin, request);
}

Result<ObjectId> CoreClient::Put(const std::vector<std::string_view>& parts) {
  std::lock_guard<ClientLock> hold(*lock_);
  TaskContext& context = contexts_.Current();
  // (Tagged with this node, whose raylet counts its holders, whichever node sent the task.)
  return objects_->Put(ObjectId::ForPut(context.task, ++context.put_index, contexts_.node()),
                       parts);
}

Result<std::vector<Fetched>> CoreClient::Get(const std::vector<ObjectId>& ids, int64_t timeout_ms) {
  std::lock_guard<ClientLock> hold(*lock_);
  return objects_->Get(ids, timeout_ms);
}

Result<std::vector<bool>> CoreClient::Wait(const std::vector<ObjectId>& ids, size_t num,
                                           int64_t timeout_ms) {
  std::lock_guard<ClientLock> hold(*lock_);
  return objects_->Wait(ids, num, timeout_ms);
}

Result<std::string> CoreClient::Call(const std::string& op, const std::string& body) {
  std::lock_guard<ClientLock> hold(*lock_);
  if (op == "create_placement_group") {
    // The group belongs to this job (it is removed when the job ends).
    using Args = std::tuple<std::string, std::string, std::vector<std::map<std::string, double>>>;
    auto args = protocol::DecodeBody<Args>(body, op.c_str());
    if (!args.ok()) return args.status();
    return raylet_->Call(
        op, ri::Pack(std::tuple_cat(*args, std::make_tuple(contexts_.Current().job.Binary()))));
  }
  if (op == "get_actor") {
    // [name, namespace]: the raylet is told the caller's job, whose namespace an empty
    // one means.
    auto args = protocol::DecodeBody<std::tuple<std::string, std::string>>(body, "get_actor");
    if (!args.ok()) return args.status();
    return raylet_->Call(
        op, ri::Pack(std::tuple_cat(*args, std::make_tuple(contexts_.Current().job.Binary()))));
  }
  if (op == "get_namespace") return raylet_->Call(op, contexts_.Current().job.Binary());
  if (op != "profile_event") return raylet_->Call(op, body);
  // The raylet may not know what this worker runs (direct calls): say it.
  auto span = protocol::DecodeBody<std::tuple<std::string, int64_t, int64_t>>(body, op.c_str());
  if (!span.ok()) return span.status();
  const TaskContext& context = contexts_.Current();
  return raylet_->Call(op, ri::Pack(std::tuple_cat(
                               *span, std::make_tuple(is_driver_ ? std::string()
                                                                 : context.task.Binary(),
                                                      context.job.Binary()))));
}

void CoreClient::PrintLogLines(protocol::LogLines lines) {
  // Each line prefixed with its source, as Ray's log_to_driver does.
  FILE* out = lines.is_stderr ? stderr : stdout;
  size_t start = 0;
  const std::string& t = lines.text;
  while (start < t.size()) {
    size_t end = t.find('\n', start);
    if (end == std::string::npos) end = t.size();
    std::fprintf(out, "(%s) %.*s\n", lines.source.c_str(), static_cast<int>(end - start),
                 t.data() + start);
    start = end + 1;
  }
  std::fflush(out);
}

}  // namespace ray::core
