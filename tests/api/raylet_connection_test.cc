// RayletConnection against a real ZeroMQ socket standing in for the raylet.
#include "runtime/api/raylet_connection.h"

#include <gtest/gtest.h>

#include <future>
#include <mutex>
#include <thread>

namespace ray::core {
namespace {

using protocol::MessageType;

class RayletConnectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto endpoint = raylet_.Bind("tcp://127.0.0.1:*");
    ASSERT_TRUE(endpoint.ok()) << endpoint.status().message();
    // The raylet's side of the registration, while Connect waits for it.
    std::thread raylet([&] {
      auto in = raylet_.Recv(5000);
      ASSERT_TRUE(in.has_value());
      auto env = protocol::DecodeEnvelope(in->frame);
      ASSERT_TRUE(env.ok());
      EXPECT_EQ(env->type, MessageType::kRegisterClient);
      peer_ = in->peer;
      protocol::RegisterReply reply;
      reply.node_id = "node";
      raylet_.Send(peer_, protocol::Encode(MessageType::kRegisterReply, 0, reply));
    });
    auto conn = RayletConnection::Connect(*endpoint, protocol::RegisterClient{"client-1", 1, true, JobId(), ""});
    raylet.join();
    ASSERT_TRUE(conn.ok()) << conn.status().message();
    conn_ = std::move(conn).value();
  }

  // The next request the client sent (its envelope).
  protocol::Envelope NextFromClient() {
    auto in = raylet_.Recv(5000);
    EXPECT_TRUE(in.has_value());
    last_frame_ = in ? in->frame : std::string();
    auto env = protocol::DecodeEnvelope(last_frame_);
    EXPECT_TRUE(env.ok());
    return env.ok() ? *env : protocol::Envelope{};
  }

  transport::Router raylet_;
  std::string peer_;
  std::string last_frame_;
  std::unique_ptr<RayletConnection> conn_;
};

TEST_F(RayletConnectionTest, RegistersUnderItsIdentity) {
  EXPECT_EQ(peer_, "client-1");
  EXPECT_EQ(conn_->node().node_id, "node");
}

TEST_F(RayletConnectionTest, DispatchesFramesAndBatchesToTheirHandlersInOrder) {
  std::vector<std::string> seen;
  conn_->OnMessage(MessageType::kExit, [&](std::string_view) { seen.push_back("exit"); });
  conn_->OnMessage(MessageType::kRevokeLease, [&](std::string_view) { seen.push_back("revoke"); });
  raylet_.Send(peer_, protocol::EncodeBatch({protocol::Encode(MessageType::kRevokeLease, 0, std::string()),
                                             protocol::Encode(MessageType::kYieldLease, 0, std::string()),
                                             protocol::Encode(MessageType::kExit, 0, std::string())}));
  for (int i = 0; i < 3 && seen.size() < 2; ++i) ASSERT_TRUE(conn_->Pump(2000));
  // kYieldLease has no handler here: dropped, and the frames after it still arrive.
  EXPECT_EQ(seen, (std::vector<std::string>{"revoke", "exit"}));
}

TEST_F(RayletConnectionTest, ARequestGetsItsReplyWhileOtherFramesAreHandled) {
  int exits = 0;
  conn_->OnMessage(MessageType::kExit, [&](std::string_view) { ++exits; });
  std::thread raylet([&] {
    auto env = NextFromClient();
    EXPECT_EQ(env.type, MessageType::kCall);
    raylet_.Send(peer_, protocol::Encode(MessageType::kExit, 0, std::string()));
    // A reply to another request, then the one awaited.
    raylet_.Send(peer_, protocol::Encode(MessageType::kCallReply, env.request_id + 7,
                                         protocol::CallReply{"", "wrong"}));
    raylet_.Send(peer_, protocol::Encode(MessageType::kCallReply, env.request_id,
                                         protocol::CallReply{"", "right"}));
  });
  auto reply = conn_->Call("op", "body");
  raylet.join();
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  EXPECT_EQ(*reply, "right");
  EXPECT_EQ(exits, 1);
}

TEST_F(RayletConnectionTest, ACallsErrorIsAFailedPrecondition) {
  std::thread raylet([&] {
    auto env = NextFromClient();
    raylet_.Send(peer_, protocol::Encode(MessageType::kCallReply, env.request_id,
                                         protocol::CallReply{"no such actor", ""}));
  });
  auto reply = conn_->Call("get_actor", "x");
  raylet.join();
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(reply.status().message().find("no such actor"), std::string::npos);
}

TEST_F(RayletConnectionTest, TheReplyToAnAbandonedRequestIsDropped) {
  int replies = 0;
  conn_->OnMessage(MessageType::kCallReply, [&](std::string_view) { ++replies; });
  auto settled = conn_->Request(MessageType::kCall, "x", MessageType::kCallReply, [] { return true; });
  ASSERT_TRUE(settled.ok());
  EXPECT_FALSE(settled->has_value());
  auto env = NextFromClient();
  raylet_.Send(peer_, protocol::Encode(MessageType::kCallReply, env.request_id, protocol::CallReply{}));
  ASSERT_TRUE(conn_->Pump(2000));
  EXPECT_EQ(replies, 0);
}

TEST_F(RayletConnectionTest, PiggybackedFramesGoFirstInOneBatch) {
  int asked_all = 0;
  conn_->SetPiggyback([&](bool all) {
    asked_all += all;
    return protocol::Encode(MessageType::kFreeObjects, 0, protocol::FreeObjects{});
  });
  conn_->SendWithPiggyback(protocol::Encode(MessageType::kReturnLease, 0, std::string()), /*all=*/true);
  auto env = NextFromClient();
  ASSERT_EQ(env.type, MessageType::kBatch);
  auto frames = protocol::DecodeBatch(env.body);
  ASSERT_TRUE(frames.ok());
  ASSERT_EQ(frames->size(), 2u);
  EXPECT_EQ(protocol::DecodeEnvelope((*frames)[0])->type, MessageType::kFreeObjects);
  EXPECT_EQ(protocol::DecodeEnvelope((*frames)[1])->type, MessageType::kReturnLease);
  EXPECT_EQ(asked_all, 1);
}

TEST_F(RayletConnectionTest, PollSourcesAreServedWhileWaiting) {
  transport::Router other;
  auto endpoint = other.Bind("tcp://127.0.0.1:*");
  ASSERT_TRUE(endpoint.ok());
  transport::Dealer sender("sender");
  ASSERT_TRUE(sender.Connect(*endpoint).ok());
  int frames = 0;
  conn_->AddPollSource({[&](std::vector<zmq::pollitem_t>& items) {
                          items.push_back({other.socket().handle(), 0, ZMQ_POLLIN, 0});
                        },
                        [&](const zmq::pollitem_t* items, size_t n) {
                          ASSERT_EQ(n, 1u);
                          if (items[0].revents & ZMQ_POLLIN) {
                            while (other.Recv(0)) ++frames;
                          }
                        }});
  sender.Send("hello");
  for (int i = 0; i < 20 && frames == 0; ++i) ASSERT_TRUE(conn_->Pump(100));
  EXPECT_EQ(frames, 1);
}

// Two threads share the connection through a ClientLock: each sends a request and
// waits; the raylet answers the second first. Whichever thread polls when a reply
// comes, each gets its own.
TEST_F(RayletConnectionTest, ThreadsSharingTheConnectionEachGetTheirOwnReply) {
  ClientLock lock;
  conn_->SetLock(&lock);
  std::string got_a, got_b;
  auto call = [&](const std::string& body, std::string* got) {
    std::lock_guard<ClientLock> hold(lock);
    auto reply = conn_->Call("op", body);
    *got = reply.ok() ? *reply : "error: " + reply.status().message();
  };
  std::thread a(call, "a", &got_a);
  std::thread b(call, "b", &got_b);
  // The raylet: both requests, then the answers in reverse order.
  std::vector<std::pair<uint64_t, std::string>> requests;  // id, body
  for (int i = 0; i < 2; ++i) {
    auto env = NextFromClient();  // (its body is a view of the frame: decoded now)
    auto req = protocol::DecodeBody<protocol::CallRequest>(env.body, "CallRequest");
    ASSERT_TRUE(req.ok());
    requests.emplace_back(env.request_id, req->body);
  }
  for (int i = 1; i >= 0; --i) {
    raylet_.Send(peer_, protocol::Encode(MessageType::kCallReply, requests[i].first,
                                         protocol::CallReply{"", "reply to " + requests[i].second}));
  }
  a.join();
  b.join();
  EXPECT_EQ(got_a, "reply to a");
  EXPECT_EQ(got_b, "reply to b");
}

// A thread that wants the connection while another waits in a long poll gets it at
// once: the poller lets it in.
TEST_F(RayletConnectionTest, AThreadGetsTheConnectionWhileAnotherWaitsForFrames) {
  ClientLock lock;
  conn_->SetLock(&lock);
  std::promise<void> asked;
  std::thread waiter([&] {
    std::lock_guard<ClientLock> hold(lock);
    auto reply = conn_->Call("slow", "");  // answered only after the other thread's
    EXPECT_TRUE(reply.ok());
  });
  auto slow = NextFromClient();
  std::thread other([&] {
    std::lock_guard<ClientLock> hold(lock);  // while the waiter polls
    conn_->Send(protocol::Encode(MessageType::kReturnLease, 0, std::string()));
    asked.set_value();
  });
  ASSERT_EQ(asked.get_future().wait_for(std::chrono::seconds(10)), std::future_status::ready)
      << "the thread waiting for frames kept the connection";
  EXPECT_EQ(NextFromClient().type, MessageType::kReturnLease);
  raylet_.Send(peer_, protocol::Encode(MessageType::kCallReply, slow.request_id,
                                       protocol::CallReply{"", "done"}));
  other.join();
  waiter.join();
}

}  // namespace
}  // namespace ray::core
