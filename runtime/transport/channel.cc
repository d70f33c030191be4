#include "runtime/transport/channel.h"

#include <chrono>
#include <utility>

#include "runtime/base/hex.h"

namespace ray::transport {

Channel::Channel(std::string endpoint, ChannelOptions options)
    : endpoint_(std::move(endpoint)), options_(std::move(options)) {}

Result<std::string> Channel::Request(protocol::MessageType type, const std::string& body,
                                     int timeout_ms) {
  const std::string& name = options_.name.empty() ? endpoint_ : options_.name;
  std::lock_guard<std::mutex> lock(mu_);
  try {
    if (!dealer_) {
      auto d = std::make_unique<Dealer>(
          options_.identity_prefix.empty() ? "" : options_.identity_prefix + ToHex(RandomBytes(8)));
      if (options_.heartbeat_ms > 0) {
        d->socket().set(zmq::sockopt::heartbeat_ivl, options_.heartbeat_ms);
        d->socket().set(zmq::sockopt::heartbeat_timeout, 3 * options_.heartbeat_ms);
      }
      RAY_RETURN_IF_ERROR(d->Connect(endpoint_));
      if (!options_.hello.empty()) d->Send(options_.hello);
      dealer_ = std::move(d);
    }
    const uint64_t id = ++last_request_;
    dealer_->Send(protocol::Encode(type, id, body));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (true) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      auto reply = left.count() > 0 ? dealer_->Recv(static_cast<int>(left.count())) : std::nullopt;
      if (!reply) break;
      auto env = protocol::DecodeEnvelope(*reply);
      if (env.ok() && env->request_id == id) return std::move(*reply);  // (others: dropped)
    }
  } catch (const zmq::error_t& e) {
    dealer_.reset();
    return Status::Unavailable(name + ": " + e.what());
  }
  dealer_.reset();  // (a reply still on its way goes with the socket)
  return Status::Unavailable(name + " did not answer within " + std::to_string(timeout_ms) + " ms");
}

}  // namespace ray::transport
