// GcsClient's connection, against a stand-in GCS: a real ROUTER socket on loopback
// that this test answers by hand.

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "runtime/gcs/gcs_client.h"
#include "runtime/serialization/protocol.h"
#include "runtime/transport/transport.h"

namespace ray::gcs {
namespace {

using protocol::MessageType;

// Answers `calls` GCS calls in turn (a CallReply with no error), each `delay_ms` late;
// records the peer each came from.
std::vector<std::string> Serve(transport::Router& server, int calls, int delay_ms = 0) {
  std::vector<std::string> peers;
  while (static_cast<int>(peers.size()) < calls) {
    auto in = server.Recv(5000);
    if (!in) break;
    auto env = protocol::DecodeEnvelope(in->frame);
    if (!env.ok() || env->type != MessageType::kGcsCall) continue;
    peers.push_back(in->peer);
    if (delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    server.Send(in->peer, protocol::Encode(MessageType::kCallReply, env->request_id,
                                           protocol::CallReply{}));
  }
  return peers;
}

TEST(GcsClientTest, CallsShareOneConnection) {
  transport::Router server;
  auto endpoint = server.Bind("tcp://127.0.0.1:*");
  ASSERT_TRUE(endpoint.ok()) << endpoint.status().ToString();
  GcsClient client(*endpoint, "token", 2000);
  std::vector<std::string> peers;
  std::thread gcs([&] { peers = Serve(server, 3); });
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(client.Ping().ok()) << "call " << i;
  gcs.join();
  ASSERT_EQ(peers.size(), 3u);
  EXPECT_EQ(peers[1], peers[0]) << "the second call came on a new connection";
  EXPECT_EQ(peers[2], peers[0]) << "the third call came on a new connection";
}

TEST(GcsClientTest, AReplyTooLateIsNotTakenForTheNextCallsReply) {
  transport::Router server;
  auto endpoint = server.Bind("tcp://127.0.0.1:*");
  ASSERT_TRUE(endpoint.ok()) << endpoint.status().ToString();
  GcsClient client(*endpoint, "token", 300);
  // The first call is answered after its timeout, the second at once.
  std::thread gcs([&] {
    Serve(server, 1, /*delay_ms=*/600);
    Serve(server, 1);
  });
  Status first = client.Ping();
  EXPECT_EQ(first.code(), StatusCode::kUnavailable) << first.ToString();
  std::this_thread::sleep_for(std::chrono::milliseconds(400));  // the late reply is sent
  EXPECT_TRUE(client.Ping().ok());
  gcs.join();
}

}  // namespace
}  // namespace ray::gcs
