#include "runtime/gcs/gcs_client.h"

#include <memory>
#include <tuple>
#include <utility>

#include "runtime/transport/curve.h"
#include "runtime/transport/channel.h"
#include "runtime/transport/transport.h"

namespace ray::gcs {

namespace {

using protocol::MessageType;

template <typename T>
std::string Pack(const T& value) {
  msgpack::sbuffer buf;
  msgpack::pack(buf, value);
  return std::string(buf.data(), buf.size());
}

bool EndsWith(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The GCS replies with a message only; the code is recovered from its wording.
Status FromReplyError(const std::string& error) {
  if (error.empty()) return Status::Ok();
  if (error == "invalid cluster token") return Status::PermissionDenied(error);
  if (error == "unknown node" || EndsWith(error, " not found")) return Status::NotFound(error);
  if (EndsWith(error, " is taken") || error.find(" is taken in namespace ") != std::string::npos) {
    return Status::AlreadyExists(error);
  }
  if (error.rfind("unknown GCS operation", 0) == 0) return {StatusCode::kUnimplemented, error};
  if (error.rfind("malformed ", 0) == 0 || EndsWith(error, " is empty")) {
    return Status::InvalidArgument(error);
  }
  return Status::Internal(error);
}

}  // namespace

Result<std::string> GcsClient::Exchange(MessageType type, const std::string& body,
                                        MessageType expect) {
  const std::string& endpoint = endpoint_;
  if (watch_ != nullptr && !watch_->Up()) {
    return Status::Unavailable("GCS at " + endpoint + " is down (waiting for it to come back)");
  }
  Result<std::string> frame = channel_->Request(type, body, timeout_ms_);
  if (!frame.ok()) {
    if (watch_ != nullptr && frame.status().code() == StatusCode::kUnavailable) {
      watch_->MarkDown();
    }
    if (transport::Encrypted(endpoint)) {
      return Status::Unavailable(frame.status().message() +
                                 " (traffic between hosts is encrypted with keys from the "
                                 "cluster token: a wrong token is not answered at all)");
    }
    return frame.status();
  }
  Result<protocol::Envelope> env = protocol::DecodeEnvelope(*frame);
  if (!env.ok()) {
    return Status::InvalidArgument("bad reply from GCS at " + endpoint + ": " +
                                   env.status().message());
  }
  if (env->type != expect) {
    return Status::InvalidArgument("GCS at " + endpoint + " replied with message type " +
                                   std::to_string(static_cast<int>(env->type)));
  }
  return std::string(env->body);
}

Status GcsClient::NodeRequest(MessageType type, const std::string& body) {
  RAY_ASSIGN_OR_RETURN(std::string reply_body, Exchange(type, body, MessageType::kGcsReply));
  RAY_ASSIGN_OR_RETURN(protocol::GcsReply reply,
                       protocol::DecodeBody<protocol::GcsReply>(reply_body, "GcsReply"));
  if (reply.gcs_starts > 0) gcs_starts_ = reply.gcs_starts;
  return FromReplyError(reply.error);
}

GcsClient::GcsClient(std::string endpoint, std::string token, int timeout_ms)
    : endpoint_(std::move(endpoint)),
      token_(std::move(token)),
      timeout_ms_(timeout_ms),
      // (ZeroMQ's heartbeats notice a connection dropped on the way between calls.)
      channel_(std::make_shared<transport::Channel>(
          endpoint_, transport::ChannelOptions{"GCS at " + endpoint_, "", "", 1000})) {
  transport::UseClusterToken(token_);  // the keys of sockets between hosts
}

Result<std::string> GcsClient::Call(const std::string& op, const std::string& body) {
  protocol::CallRequest request{op, body, token_};
  RAY_ASSIGN_OR_RETURN(std::string reply_body,
                       Exchange(MessageType::kGcsCall, Pack(request), MessageType::kCallReply));
  RAY_ASSIGN_OR_RETURN(protocol::CallReply reply,
                       protocol::DecodeBody<protocol::CallReply>(reply_body, "CallReply"));
  RAY_RETURN_IF_ERROR(FromReplyError(reply.error));
  return std::move(reply.body);
}

Status GcsClient::Ping() { return Call("ping", "").status(); }

Result<GcsStarts> GcsClient::GetStarts() {
  RAY_ASSIGN_OR_RETURN(std::string body, Call("get_starts", ""));
  using Reply = std::tuple<int64_t, int64_t>;
  RAY_ASSIGN_OR_RETURN(Reply r, protocol::DecodeBody<Reply>(body, "get_starts reply"));
  return GcsStarts{std::get<0>(r), std::get<1>(r)};
}

Status GcsClient::RegisterNode(const protocol::NodeInfo& node) {
  protocol::NodeInfo with_token = node;
  with_token.token = token_;
  return NodeRequest(MessageType::kRegisterNode, Pack(with_token));
}

Status GcsClient::Heartbeat(const std::string& node_id,
                            const std::map<std::string, double>& available,
                            const std::vector<protocol::ResourceDemand>& load) {
  protocol::Heartbeat hb{node_id, available, token_, load};
  return NodeRequest(MessageType::kHeartbeat, Pack(hb));
}

Status GcsClient::UnregisterNode(const std::string& node_id) {
  protocol::Heartbeat hb{node_id, {}, token_, {}};
  return NodeRequest(MessageType::kUnregisterNode, Pack(hb));
}

Result<std::vector<protocol::NodeInfo>> GcsClient::GetNodes() {
  RAY_ASSIGN_OR_RETURN(std::string body, Call("get_nodes", ""));
  return protocol::DecodeBody<std::vector<protocol::NodeInfo>>(body, "get_nodes reply");
}

Status GcsClient::PutPlugin(const std::string& hash, const std::string& name,
                            const std::string& bytes) {
  return Call("put_plugin", Pack(std::make_tuple(hash, name, bytes))).status();
}

Status GcsClient::ReportAutoscaler(const std::string& status_json) {
  return Call("report_autoscaler", Pack(std::make_tuple(status_json))).status();
}

Result<std::pair<bool, std::string>> GcsClient::GetAutoscaler() {
  RAY_ASSIGN_OR_RETURN(std::string body, Call("get_autoscaler", ""));
  using Reply = std::tuple<bool, std::string>;
  RAY_ASSIGN_OR_RETURN(Reply r, protocol::DecodeBody<Reply>(body, "get_autoscaler reply"));
  return std::make_pair(std::get<0>(r), std::get<1>(r));
}

Result<std::string> GcsClient::GetPlugin(const std::string& hash) {
  return Call("get_plugin", hash);
}

Status GcsClient::RegisterNamedActor(const std::string& name, const std::string& actor_id,
                                     const std::string& node_id,
                                     const std::string& ray_namespace) {
  return Call("register_actor", Pack(std::make_tuple(name, actor_id, node_id, ray_namespace)))
      .status();
}

Result<std::string> GcsClient::LookupNamedActor(const std::string& name,
                                                const std::string& ray_namespace,
                                                const std::string& job_id) {
  return Call("get_actor", Pack(std::make_tuple(name, ray_namespace, job_id)));
}

Status GcsClient::RemoveActor(const std::string& actor_id) {
  return Call("remove_actor", actor_id).status();
}

Status GcsClient::AddJob(const std::string& job_id, int pid, const std::string& entry,
                         const std::string& ray_namespace) {
  return Call("add_job", Pack(std::make_tuple(job_id, pid, entry, ray_namespace))).status();
}

Status GcsClient::FinishJob(const std::string& job_id, int exit_code) {
  return Call("finish_job", Pack(std::make_tuple(job_id, exit_code))).status();
}

Result<std::vector<JobRecord>> GcsClient::GetJobs() {
  RAY_ASSIGN_OR_RETURN(std::string body, Call("get_jobs", ""));
  return protocol::DecodeBody<std::vector<JobRecord>>(body, "get_jobs reply");
}

Status GcsClient::AddTaskEvents(const std::vector<TaskEvent>& events) {
  return Call("add_task_events", Pack(events)).status();
}

Status GcsClient::RecordActors(
    const std::vector<std::tuple<std::string, std::string, bool>>& records) {
  return Call("record_actors", Pack(records)).status();
}

Status GcsClient::RegisterActor(const std::string& actor_id, const std::string& node_id) {
  return Call("register_actor",
              Pack(std::make_tuple(std::string(), actor_id, node_id, std::string())))
      .status();
}

Result<std::string> GcsClient::ActorNode(const std::string& actor_id) {
  return Call("get_actor_node", actor_id);
}

Status GcsClient::AddObjectLocations(
    const std::vector<std::pair<std::string, std::string>>& locations) {
  return Call("add_object_locations", Pack(locations)).status();
}

Result<std::vector<std::vector<std::string>>> GcsClient::GetObjectLocations(
    const std::vector<std::string>& object_ids) {
  RAY_ASSIGN_OR_RETURN(std::string body, Call("get_object_locations", Pack(object_ids)));
  return protocol::DecodeBody<std::vector<std::vector<std::string>>>(body,
                                                                     "get_object_locations reply");
}

Status GcsClient::AddObjects(const std::vector<ObjectLocation>& objects) {
  return Call("add_objects", Pack(objects)).status();
}

Result<std::vector<ObjectRecord>> GcsClient::GetObjects(uint64_t limit) {
  RAY_ASSIGN_OR_RETURN(std::string body, Call("get_objects", Pack(limit)));
  return protocol::DecodeBody<std::vector<ObjectRecord>>(body, "get_objects reply");
}

Result<std::vector<ActorRecord>> GcsClient::GetActors() {
  RAY_ASSIGN_OR_RETURN(std::string body, Call("get_actors", ""));
  return protocol::DecodeBody<std::vector<ActorRecord>>(body, "get_actors reply");
}

Result<std::vector<TaskEvent>> GcsClient::GetTaskEvents(const std::string& job_id, uint64_t limit) {
  RAY_ASSIGN_OR_RETURN(std::string body,
                       Call("get_task_events", Pack(std::make_tuple(job_id, limit))));
  return protocol::DecodeBody<std::vector<TaskEvent>>(body, "get_task_events reply");
}

}  // namespace ray::gcs
