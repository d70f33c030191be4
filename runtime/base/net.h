#pragma once
// Addresses of this machine.

#include <optional>
#include <string>

namespace ray {

// This machine's IPv4 address on the route toward `host` (an IPv4 address), found
// by connecting a UDP socket (nothing is sent); nullopt if there is no route.
std::optional<std::string> LocalAddressToward(const std::string& host);

}  // namespace ray
