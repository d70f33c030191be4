// Router and Dealer over real ZeroMQ sockets on loopback. Every wait is a bounded
// Recv; nothing sleeps.

#include "runtime/transport/transport.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "runtime/base/util.h"

namespace ray::transport {
namespace {

using protocol::MessageType;

constexpr int kTimeoutMs = 5000;

// A Router bound to an ephemeral loopback port.
class TransportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto bound = router_.Bind("tcp://127.0.0.1:0");
    ASSERT_TRUE(bound.ok()) << bound.status().ToString();
    endpoint_ = *bound;
  }

  Router router_;
  std::string endpoint_;
};

TEST_F(TransportTest, BindResolvesThePort) {
  const std::string prefix = "tcp://127.0.0.1:";
  ASSERT_EQ(endpoint_.rfind(prefix, 0), 0u) << endpoint_;
  int port = std::stoi(endpoint_.substr(prefix.size()));
  EXPECT_GT(port, 0);
  EXPECT_LT(port, 65536);
}

TEST_F(TransportTest, BindingTwiceOrBadEndpointIsUnavailable) {
  Router other;
  auto again = other.Bind(endpoint_);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(again.status().message().find(endpoint_), std::string::npos);
  auto bad = other.Bind("nonsense://x");
  EXPECT_EQ(bad.status().code(), StatusCode::kUnavailable);
}

TEST_F(TransportTest, RequestReplyBetweenRouterAndDealer) {
  Dealer dealer("client-1");
  ASSERT_TRUE(dealer.Connect(endpoint_).ok());
  dealer.Send("ping");
  auto in = router_.Recv(kTimeoutMs);
  ASSERT_TRUE(in.has_value());
  EXPECT_EQ(in->peer, "client-1");
  EXPECT_EQ(in->frame, "ping");
  EXPECT_TRUE(router_.Send(in->peer, "pong"));
  auto reply = dealer.Recv(kTimeoutMs);
  ASSERT_TRUE(reply.has_value());
  EXPECT_EQ(*reply, "pong");
}

TEST_F(TransportTest, RepliesAreRoutedByIdentity) {
  Dealer a("peer-a"), b("peer-b");
  ASSERT_TRUE(a.Connect(endpoint_).ok());
  ASSERT_TRUE(b.Connect(endpoint_).ok());
  a.Send("from-a");
  b.Send("from-b");
  for (int i = 0; i < 2; ++i) {
    auto in = router_.Recv(kTimeoutMs);
    ASSERT_TRUE(in.has_value());
    EXPECT_EQ(in->frame, "from-" + in->peer.substr(5));
    ASSERT_TRUE(router_.Send(in->peer, "to-" + in->peer));
  }
  EXPECT_EQ(a.Recv(kTimeoutMs).value_or(""), "to-peer-a");
  EXPECT_EQ(b.Recv(kTimeoutMs).value_or(""), "to-peer-b");
}

TEST_F(TransportTest, EmptyAndBinaryFramesArrive) {
  Dealer dealer("bin");
  ASSERT_TRUE(dealer.Connect(endpoint_).ok());
  std::string binary("\x00\xff\x00", 3);
  dealer.Send("");
  dealer.Send(binary);
  auto first = router_.Recv(kTimeoutMs);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->frame, "");
  auto second = router_.Recv(kTimeoutMs);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->frame, binary);
}

TEST_F(TransportTest, RecvWithNothingWaitingIsEmpty) {
  EXPECT_FALSE(router_.Recv(0).has_value());
  int64_t start = MonoMillis();
  EXPECT_FALSE(router_.Recv(50).has_value());
  EXPECT_GE(MonoMillis() - start, 40);
  Dealer dealer;
  ASSERT_TRUE(dealer.Connect(endpoint_).ok());
  EXPECT_FALSE(dealer.Recv(0).has_value());
}

TEST_F(TransportTest, MultipartMessageIsDroppedAndNextArrives) {
  Dealer dealer("multi");
  ASSERT_TRUE(dealer.Connect(endpoint_).ok());
  std::string part1 = "part-1", part2 = "part-2", part3 = "part-3";
  dealer.socket().send(zmq::buffer(part1), zmq::send_flags::sndmore);
  dealer.socket().send(zmq::buffer(part2), zmq::send_flags::sndmore);
  dealer.socket().send(zmq::buffer(part3), zmq::send_flags::none);
  dealer.Send("single");
  auto in = router_.Recv(kTimeoutMs);
  ASSERT_TRUE(in.has_value());
  EXPECT_EQ(in->peer, "multi");
  EXPECT_EQ(in->frame, "single");
  EXPECT_FALSE(router_.Recv(0).has_value());
}

// A payload sent uncopied arrives as the second part, intact; what kept its bytes
// alive is let go once ZeroMQ is done with them.
TEST_F(TransportTest, APayloadSentUncopiedArrivesAsTheSecondPartAndIsLetGo) {
  Dealer dealer("bulk");
  ASSERT_TRUE(dealer.Connect(endpoint_).ok());
  dealer.Send("hello");
  auto in = router_.Recv(kTimeoutMs);
  ASSERT_TRUE(in.has_value());
  auto bytes = std::make_shared<std::string>(3u << 20, '\0');
  for (size_t i = 0; i < bytes->size(); ++i) (*bytes)[i] = static_cast<char>(i * 7);
  std::weak_ptr<std::string> watch = bytes;
  ASSERT_TRUE(router_.SendWithPayload(in->peer, "header", bytes->data(), bytes->size(), bytes));
  const std::string expected = *bytes;
  bytes.reset();  // only ZeroMQ holds them now
  zmq::message_t part;
  auto frame = dealer.Recv(kTimeoutMs, &part);
  ASSERT_TRUE(frame.has_value());
  EXPECT_EQ(*frame, "header");
  ASSERT_EQ(part.size(), expected.size());
  EXPECT_EQ(std::string(static_cast<const char*>(part.data()), part.size()), expected);
  // (Released on ZeroMQ's I/O thread once sent: soon after it arrived.)
  for (int i = 0; i < 500 && !watch.expired(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(watch.expired());
  // A message of one frame leaves the part empty; one received without asking for
  // the part loses it, and the next message is whole.
  ASSERT_TRUE(router_.Send(in->peer, "plain"));
  frame = dealer.Recv(kTimeoutMs, &part);
  ASSERT_TRUE(frame.has_value());
  EXPECT_EQ(*frame, "plain");
  EXPECT_EQ(part.size(), 0u);
  std::string small = "abc";
  ASSERT_TRUE(router_.SendWithPayload(in->peer, "with", small.data(), small.size(), nullptr));
  ASSERT_TRUE(router_.Send(in->peer, "after"));
  EXPECT_EQ(dealer.Recv(kTimeoutMs).value_or(""), "with");
  EXPECT_EQ(dealer.Recv(kTimeoutMs).value_or(""), "after");
}

// Sending to a peer that is not there lets go of the payload's keeper at once.
TEST_F(TransportTest, APayloadToAnUnknownPeerIsLetGo) {
  auto bytes = std::make_shared<std::string>("data");
  std::weak_ptr<std::string> watch = bytes;
  const char* data = bytes->data();
  EXPECT_FALSE(router_.SendWithPayload("nobody", "header", data, 4, std::move(bytes)));
  EXPECT_TRUE(watch.expired());
}

TEST_F(TransportTest, DroppedMessagesDoNotExtendTheTimeout) {
  // A peer keeps sending malformed (multi-part) messages; Recv still returns about
  // when its timeout says.
  std::atomic<bool> stop{false};
  std::thread spammer([&] {
    Dealer dealer("spammer");
    if (!dealer.Connect(endpoint_).ok()) return;
    std::string a = "a", b = "b";
    int64_t give_up = MonoMillis() + 2000;  // bounds the test if Recv never returns
    while (!stop.load() && MonoMillis() < give_up) {
      dealer.socket().send(zmq::buffer(a), zmq::send_flags::sndmore);
      dealer.socket().send(zmq::buffer(b), zmq::send_flags::none);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));  // pacing only
    }
  });
  constexpr int kWaitMs = 200;
  int64_t start = MonoMillis();
  auto in = router_.Recv(kWaitMs);
  int64_t took = MonoMillis() - start;
  stop = true;
  spammer.join();
  EXPECT_FALSE(in.has_value());
  EXPECT_LT(took, kWaitMs + 500);
}

TEST_F(TransportTest, SendToUnknownPeerReturnsFalse) {
  bool sent = true;
  ASSERT_NO_THROW(sent = router_.Send("nobody", "frame"));
  EXPECT_FALSE(sent);
  // The socket still works afterwards.
  Dealer dealer("somebody");
  ASSERT_TRUE(dealer.Connect(endpoint_).ok());
  dealer.Send("hi");
  auto in = router_.Recv(kTimeoutMs);
  ASSERT_TRUE(in.has_value());
  EXPECT_TRUE(router_.Send("somebody", "back"));
  EXPECT_EQ(dealer.Recv(kTimeoutMs).value_or(""), "back");
}

TEST_F(TransportTest, SendAfterPeerLeftReturnsFalse) {
  std::string peer;
  {
    Dealer dealer("leaver");
    ASSERT_TRUE(dealer.Connect(endpoint_).ok());
    dealer.Send("hello");
    auto in = router_.Recv(kTimeoutMs);
    ASSERT_TRUE(in.has_value());
    peer = in->peer;
  }
  // The disconnect is noticed asynchronously: Send never throws and turns false.
  bool sent = true;
  int64_t deadline = MonoMillis() + kTimeoutMs;
  while (sent && MonoMillis() < deadline) {
    ASSERT_NO_THROW(sent = router_.Send(peer, "late"));
    if (sent) router_.Recv(10);  // lets the socket process the disconnect
  }
  EXPECT_FALSE(sent);
}

TEST_F(TransportTest, RequestGetsTheReply) {
  std::thread server([&] {
    auto in = router_.Recv(kTimeoutMs);
    if (!in) return;
    auto env = protocol::DecodeEnvelope(in->frame);
    if (!env.ok()) return;
    protocol::GcsReply reply{std::string(env->body) + "-seen"};
    router_.Send(in->peer, protocol::Encode(MessageType::kGcsReply, env->request_id, reply));
  });
  auto reply = Request(endpoint_, MessageType::kGcsCall, "body", kTimeoutMs);
  server.join();
  ASSERT_TRUE(reply.ok()) << reply.status().ToString();
  auto env = protocol::DecodeEnvelope(*reply);
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->type, MessageType::kGcsReply);
  auto body = protocol::DecodeBody<protocol::GcsReply>(env->body, "GcsReply");
  ASSERT_TRUE(body.ok());
  EXPECT_EQ(body->error, "body-seen");
}

TEST(RequestTest, NobodyServingIsUnavailableWithinTimeout) {
  // A port that was just free: bind, note it, close.
  std::string endpoint;
  {
    Router r;
    auto bound = r.Bind("tcp://127.0.0.1:0");
    ASSERT_TRUE(bound.ok());
    endpoint = *bound;
  }
  constexpr int kWaitMs = 200;
  int64_t start = MonoMillis();
  auto reply = Request(endpoint, MessageType::kGcsCall, "x", kWaitMs);
  int64_t took = MonoMillis() - start;
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(reply.status().message().find(endpoint), std::string::npos);
  EXPECT_GE(took, kWaitMs - 10);
  EXPECT_LT(took, kWaitMs + 2000);

  // An ipc endpoint with no socket file behaves the same.
  auto ipc = Request("ipc:///tmp/ray-unit-test-nobody-" + std::to_string(::getpid()),
                     MessageType::kGcsCall, "x", 50);
  EXPECT_EQ(ipc.status().code(), StatusCode::kUnavailable);
}

TEST(RequestTest, MalformedEndpointIsUnavailable) {
  auto reply = Request("not an endpoint", MessageType::kGcsCall, "x", 50);
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), StatusCode::kUnavailable);
}

TEST(IpcTest, RouterDealerOverIpc) {
  std::string path = "/tmp/ray-unit-ipc-" + std::to_string(::getpid()) + "-" +
                     ToHex(RandomBytes(4));
  Router router;
  auto bound = router.Bind("ipc://" + path);
  ASSERT_TRUE(bound.ok()) << bound.status().ToString();
  Dealer dealer("ipc-peer");
  ASSERT_TRUE(dealer.Connect(*bound).ok());
  dealer.Send("over-ipc");
  auto in = router.Recv(kTimeoutMs);
  ASSERT_TRUE(in.has_value());
  EXPECT_EQ(in->frame, "over-ipc");
  ::unlink(path.c_str());
}

// A Dealer with a send limit, to a Router with a receive limit that does not read:
// sends stop being taken after a bounded number of frames, and resume once the
// Router reads.
TEST(TransportLimitsTest, ASendLimitPushesBackUntilThePeerReads) {
  Router router;
  router.SetReceiveLimit(4);
  auto bound = router.Bind("tcp://127.0.0.1:0");
  ASSERT_TRUE(bound.ok()) << bound.status().ToString();
  Dealer dealer("limited");
  dealer.SetSendLimit(4);
  ASSERT_TRUE(dealer.Connect(*bound).ok());

  const std::string frame(256 << 10, 'x');
  int sent = 0;
  while (sent < 1000 && dealer.TrySend(frame, 200)) ++sent;
  // 1000 frames would be 250 MiB queued; the limits and the kernel's socket buffers
  // hold far fewer.
  EXPECT_LT(sent, 1000) << "every send was taken: no backpressure";
  EXPECT_GT(sent, 0);

  int received = 0;
  while (received < sent && router.Recv(kTimeoutMs)) ++received;
  EXPECT_EQ(received, sent);
  EXPECT_TRUE(dealer.TrySend(frame, kTimeoutMs)) << "sends resume once the peer reads";
  EXPECT_TRUE(router.Recv(kTimeoutMs).has_value());
}

}  // namespace
}  // namespace ray::transport
