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

}  // namespace ray
