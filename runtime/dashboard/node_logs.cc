#include "runtime/dashboard/node_logs.h"

#include "runtime/base/clock.h"
#include "runtime/base/util.h"
#include "runtime/transport/curve.h"

namespace ray::dashboard {

using protocol::MessageType;

NodeLogs::NodeLogs(std::string token) : token_(std::move(token)) {
  transport::UseClusterToken(token_);
}

transport::Channel& NodeLogs::ChannelTo(const std::string& peer_address) {
  std::lock_guard lock(mu_);
  auto& c = channels_[peer_address];
  if (!c) {
    c = std::make_unique<transport::Channel>(
        peer_address,
        transport::ChannelOptions{
            "the raylet at " + peer_address, "dashboard-",
            protocol::Encode(MessageType::kPeerHello, 0, protocol::PeerHello{"dashboard", token_}),
            0});
  }
  return *c;
}

Result<nlohmann::json> NodeLogs::Ask(const std::string& peer_address,
                                     const protocol::LogsRequest& request, int timeout_ms) {
  if (peer_address.rfind("tcp://", 0) != 0) {
    return Status::Unavailable("the node has no peer address to ask for its logs");
  }
  RAY_ASSIGN_OR_RETURN(std::string frame,
                       ChannelTo(peer_address)
                           .Request(MessageType::kReadLogs, ray::internal::Pack(request), timeout_ms));
  RAY_ASSIGN_OR_RETURN(auto env, protocol::DecodeEnvelope(frame));
  if (env.type != MessageType::kLogsReply) {
    return Status::Internal("the raylet at " + peer_address + " answered with message type " +
                            std::to_string(static_cast<int>(env.type)));
  }
  RAY_ASSIGN_OR_RETURN(auto reply, protocol::DecodeBody<protocol::LogsReply>(env.body, "LogsReply"));
  if (reply.code != 0) {
    bool known = reply.code > 0 && reply.code <= static_cast<int32_t>(StatusCode::kUnimplemented);
    return Status(known ? static_cast<StatusCode>(reply.code) : StatusCode::kInternal, reply.error);
  }
  auto json = nlohmann::json::parse(reply.json, nullptr, false);
  if (json.is_discarded()) return Status::DataLoss("the raylet's logs answer is not JSON");
  return json;
}

}  // namespace ray::dashboard
