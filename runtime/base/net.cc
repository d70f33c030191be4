#include "runtime/base/net.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

namespace ray {

std::optional<std::string> LocalAddressToward(const std::string& host) {
  sockaddr_in peer{};
  peer.sin_family = AF_INET;
  peer.sin_port = htons(9);
  if (::inet_pton(AF_INET, host.c_str(), &peer.sin_addr) != 1) return std::nullopt;
  int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::nullopt;
  sockaddr_in local{};
  socklen_t len = sizeof(local);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&peer), sizeof(peer)) == 0 &&
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &len) == 0;
  ::close(fd);
  char buf[INET_ADDRSTRLEN];
  if (!ok || !::inet_ntop(AF_INET, &local.sin_addr, buf, sizeof(buf))) return std::nullopt;
  return std::string(buf);
}

namespace {

// Binds (`bind_it`) or connects a TCP socket to 127.0.0.1:port: whether it worked.
bool ProbeLoopback(int port, bool bind_it) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  auto* sa = reinterpret_cast<sockaddr*>(&addr);
  bool ok = (bind_it ? ::bind(fd, sa, sizeof(addr)) : ::connect(fd, sa, sizeof(addr))) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

bool LoopbackPortFree(int port) { return ProbeLoopback(port, true); }
bool LoopbackPortAnswers(int port) { return ProbeLoopback(port, false); }

}  // namespace ray
