#include "runtime/raylet/outbox.h"

#include <gtest/gtest.h>

#include <set>

#include "runtime/serialization/protocol.h"

namespace ray::raylet {
namespace {

using protocol::MessageType;

struct Sent {
  std::string peer;
  std::string message;
};

std::string Frame(uint64_t req) { return protocol::Encode(MessageType::kCallReply, req, "x"); }

// The request ids of the frames one message carries (a single frame or a batch).
std::vector<uint64_t> RequestsIn(const std::string& message) {
  auto env = protocol::DecodeEnvelope(message);
  EXPECT_TRUE(env.ok());
  if (env->type != MessageType::kBatch) return {env->request_id};
  auto frames = protocol::DecodeBatch(env->body);
  EXPECT_TRUE(frames.ok());
  std::vector<uint64_t> out;
  for (auto f : *frames) out.push_back(protocol::DecodeEnvelope(f)->request_id);
  return out;
}

TEST(OutboxTest, OneMessagePerPeerInFirstQueuedOrder) {
  Outbox box;
  box.Queue("b", Frame(1));
  box.Queue("a", Frame(2));
  box.Queue("b", Frame(3));
  box.Queue("b", Frame(4));
  EXPECT_FALSE(box.empty());
  std::vector<Sent> sent;
  box.Flush(
      [&](const std::string& p, const std::string& m) {
        sent.push_back({p, m});
      },
      [](const std::string&) { return true; });
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].peer, "b");
  EXPECT_EQ(RequestsIn(sent[0].message), (std::vector<uint64_t>{1, 3, 4}));
  EXPECT_EQ(sent[1].peer, "a");
  EXPECT_EQ(sent[1].message, Frame(2));  // a single frame goes unbatched
  EXPECT_TRUE(box.empty());
}

TEST(OutboxTest, AFlushSendsOnlyWhatWasQueuedSinceTheLast) {
  Outbox box;
  std::vector<Sent> sent;
  auto send = [&](const std::string& p, const std::string& m) { sent.push_back({p, m}); };
  auto keep = [](const std::string&) { return true; };
  box.Queue("a", Frame(1));
  box.Flush(send, keep);
  box.Flush(send, keep);
  EXPECT_EQ(sent.size(), 1u);
  box.Queue("a", Frame(2));
  box.Flush(send, keep);
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(RequestsIn(sent[1].message), (std::vector<uint64_t>{2}));
}

TEST(OutboxTest, PeersThatAreGoneAreSentToThenForgotten) {
  Outbox box;
  std::set<std::string> clients = {"a"};
  std::vector<Sent> sent;
  auto send = [&](const std::string& p, const std::string& m) { sent.push_back({p, m}); };
  auto keep = [&](const std::string& p) { return clients.count(p) > 0; };
  box.Queue("a", Frame(1));
  box.Queue("gone", Frame(2));
  box.Flush(send, keep);
  ASSERT_EQ(sent.size(), 2u);  // its last frames still leave
  EXPECT_EQ(sent[1].peer, "gone");
  box.Queue("gone", Frame(3));
  box.Flush(send, keep);
  ASSERT_EQ(sent.size(), 3u);
  EXPECT_EQ(RequestsIn(sent[2].message), (std::vector<uint64_t>{3}));
}

}  // namespace
}  // namespace ray::raylet
