#include "runtime/dashboard/node_logs.h"

#include "runtime/base/clock.h"
#include "runtime/base/util.h"
#include "runtime/transport/curve.h"

namespace ray::dashboard {

using protocol::MessageType;

NodeLogs::NodeLogs(std::string token) : token_(std::move(token)) {
  transport::UseClusterToken(token_);
}

std::shared_ptr<NodeLogs::Connection> NodeLogs::ConnectionTo(const std::string& peer_address) {
  std::lock_guard lock(mu_);
  auto& c = connections_[peer_address];
  if (!c) c = std::make_shared<Connection>();
  return c;
}

Result<nlohmann::json> NodeLogs::Ask(const std::string& peer_address,
                                     const protocol::LogsRequest& request, int timeout_ms) {
  if (peer_address.rfind("tcp://", 0) != 0) {
    return Status::Unavailable("the node has no peer address to ask for its logs");
  }
  auto c = ConnectionTo(peer_address);
  std::lock_guard lock(c->mu);
  if (!c->dealer) {
    auto dealer = std::make_unique<transport::Dealer>("dashboard-" + ToHex(RandomBytes(8)));
    RAY_RETURN_IF_ERROR(dealer->Connect(peer_address));
    dealer->Send(protocol::Encode(MessageType::kPeerHello, 0,
                                  protocol::PeerHello{"dashboard", token_}));
    c->dealer = std::move(dealer);
  }
  uint64_t id = c->next_request++;
  c->dealer->Send(protocol::Encode(MessageType::kReadLogs, id, request));
  for (int64_t deadline = MonoMillis() + timeout_ms;;) {
    int64_t left = deadline - MonoMillis();
    auto frame = left > 0 ? c->dealer->Recv(static_cast<int>(left)) : std::nullopt;
    if (!frame) {
      c->dealer.reset();  // a late answer must not meet the next request
      return Status::Unavailable("the raylet at " + peer_address + " did not answer within " +
                                 std::to_string(timeout_ms) + " ms");
    }
    auto env = protocol::DecodeEnvelope(*frame);
    if (!env.ok() || env->type != MessageType::kLogsReply || env->request_id != id) continue;
    RAY_ASSIGN_OR_RETURN(auto reply, protocol::DecodeBody<protocol::LogsReply>(env->body, "LogsReply"));
    if (reply.code != 0) {
      bool known = reply.code > 0 && reply.code <= static_cast<int32_t>(StatusCode::kUnimplemented);
      return Status(known ? static_cast<StatusCode>(reply.code) : StatusCode::kInternal, reply.error);
    }
    auto json = nlohmann::json::parse(reply.json, nullptr, false);
    if (json.is_discarded()) return Status::DataLoss("the raylet's logs answer is not JSON");
    return json;
  }
}

}  // namespace ray::dashboard
