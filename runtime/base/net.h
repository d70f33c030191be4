#pragma once
// Addresses of this machine.

#include <optional>
#include <string>

namespace ray {

// This machine's IPv4 address on the route toward `host` (an IPv4 address), found
// by connecting a UDP socket (nothing is sent); nullopt if there is no route.
std::optional<std::string> LocalAddressToward(const std::string& host);

// Whether 127.0.0.1:port can be bound now (nothing listens there; SO_REUSEADDR, as
// servers bind), and whether something accepts connections there.
bool LoopbackPortFree(int port);
bool LoopbackPortAnswers(int port);

}  // namespace ray
