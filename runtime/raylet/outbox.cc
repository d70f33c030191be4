#include "runtime/raylet/outbox.h"

#include "runtime/serialization/protocol.h"

namespace ray::raylet {

void Outbox::Queue(const std::string& peer, std::string frame) {
  auto& frames = frames_[peer];
  if (frames.empty()) order_.push_back(peer);
  frames.push_back(std::move(frame));
}

void Outbox::Flush(
    const std::function<void(const std::string& peer, const std::string& message)>& send,
    const std::function<bool(const std::string& peer)>& keep) {
  for (const auto& peer : order_) {
    auto it = frames_.find(peer);
    if (it == frames_.end()) continue;
    auto& frames = it->second;
    send(peer, frames.size() == 1 ? frames[0] : protocol::EncodeBatch(frames));
    frames.clear();
    if (!keep(peer)) frames_.erase(it);
  }
  order_.clear();
}

}  // namespace ray::raylet
