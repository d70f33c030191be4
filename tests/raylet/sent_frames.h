#pragma once
// For tests of the raylet's parts that queue frames to clients: what an Outbox sends
// when flushed, frame by frame (batches opened), in order.

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "runtime/raylet/outbox.h"
#include "runtime/serialization/protocol.h"

namespace ray::raylet {

struct SentFrame {
  std::string peer;
  protocol::MessageType type;
  uint64_t req = 0;
  std::string body;
};

inline std::vector<SentFrame> FlushFrames(Outbox& outbox) {
  std::vector<SentFrame> out;
  outbox.Flush(
      [&](const std::string& peer, const std::string& message) {
        auto env = protocol::DecodeEnvelope(message);
        ASSERT_TRUE(env.ok());
        std::vector<std::string_view> frames{message};
        if (env->type == protocol::MessageType::kBatch) {
          auto batch = protocol::DecodeBatch(env->body);
          ASSERT_TRUE(batch.ok());
          frames = *batch;
        }
        for (auto f : frames) {
          auto e = protocol::DecodeEnvelope(f);
          ASSERT_TRUE(e.ok());
          out.push_back({peer, e->type, e->request_id, std::string(e->body)});
        }
      },
      [](const std::string&) { return true; });
  return out;
}

}  // namespace ray::raylet
