// Encryption between hosts: which endpoints are encrypted, and that a CURVE server
// answers only clients that hold its cluster's token. The sockets are real, bound to
// this machine's first non-loopback address (the tests skip, saying so, without one).

#include "runtime/transport/curve.h"

#include <gtest/gtest.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <net/if.h>

#include <optional>
#include <string>

#include "runtime/transport/transport.h"

namespace ray::transport {
namespace {

std::optional<std::string> NonLoopbackAddress() {
  ifaddrs* all = nullptr;
  if (::getifaddrs(&all) != 0) return std::nullopt;
  std::optional<std::string> found;
  for (ifaddrs* a = all; a && !found; a = a->ifa_next) {
    if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET || (a->ifa_flags & IFF_LOOPBACK) ||
        !(a->ifa_flags & IFF_UP)) {
      continue;
    }
    char buf[INET_ADDRSTRLEN];
    auto* in = reinterpret_cast<sockaddr_in*>(a->ifa_addr);
    if (::inet_ntop(AF_INET, &in->sin_addr, buf, sizeof(buf))) found = buf;
  }
  ::freeifaddrs(all);
  return found;
}

TEST(CurveTest, OnlyTcpBetweenHostsIsEncrypted) {
  EXPECT_TRUE(Encrypted("tcp://10.0.0.2:6379"));
  EXPECT_TRUE(Encrypted("tcp://[fd00::2]:6379"));
  EXPECT_TRUE(Encrypted("tcp://head.example:*"));
  EXPECT_FALSE(Encrypted("tcp://127.0.0.1:6379"));
  EXPECT_FALSE(Encrypted("tcp://127.3.4.5:*"));
  EXPECT_FALSE(Encrypted("tcp://localhost:6379"));
  EXPECT_FALSE(Encrypted("tcp://[::1]:6379"));
  EXPECT_FALSE(Encrypted("ipc:///tmp/ray/raylet"));
}

// One request from a fresh client with the token `client_token` to a server with the
// token `server_token`; the reply, or nullopt.
std::optional<std::string> Exchange(const std::string& ip, const std::string& server_token,
                                    const std::string& client_token) {
  UseClusterToken(server_token);
  Router server;
  auto endpoint = server.Bind("tcp://" + ip + ":*");
  EXPECT_TRUE(endpoint.ok()) << endpoint.status().message();
  if (!endpoint.ok()) return std::nullopt;
  UseClusterToken(client_token);
  Dealer client;
  EXPECT_TRUE(client.Connect(*endpoint).ok());
  client.Send("ping");
  auto in = server.Recv(1000);
  if (!in) return std::nullopt;
  EXPECT_EQ(in->frame, "ping");
  server.Send(in->peer, "pong");
  return client.Recv(1000);
}

TEST(CurveTest, AServerBetweenHostsAnswersOnlyClientsWithItsToken) {
  auto ip = NonLoopbackAddress();
  if (!ip) GTEST_SKIP() << "this machine has no non-loopback IPv4 address to listen on";
  EXPECT_EQ(Exchange(*ip, "token-a", "token-a"), "pong");
  EXPECT_EQ(Exchange(*ip, "token-a", "token-b"), std::nullopt) << "a wrong token is not heard";
}

TEST(CurveTest, APlainClientIsNotHeardByAnEncryptedServer) {
  auto ip = NonLoopbackAddress();
  if (!ip) GTEST_SKIP() << "this machine has no non-loopback IPv4 address to listen on";
  UseClusterToken("token-a");
  Router server;
  auto endpoint = server.Bind("tcp://" + *ip + ":*");
  ASSERT_TRUE(endpoint.ok());
  zmq::socket_t plain(Context(), zmq::socket_type::dealer);  // no CURVE: what a sniffer sees
  plain.set(zmq::sockopt::linger, 0);
  plain.connect(*endpoint);
  plain.send(zmq::buffer(std::string("ping")), zmq::send_flags::none);
  EXPECT_FALSE(server.Recv(500).has_value());
}

}  // namespace
}  // namespace ray::transport
