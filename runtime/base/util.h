#pragma once
// Small helpers shared by every module: time, random bytes, files, processes.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/base/clock.h"
#include "runtime/base/status.h"

namespace ray {

std::string RandomBytes(size_t n);
std::string ToHex(std::string_view bytes);
std::optional<std::string> FromHex(std::string_view hex);

Result<std::string> ReadFile(const std::string& path);
// Writes atomically (temp file + rename) with the given permissions.
Status WriteFile(const std::string& path, std::string_view data, int mode = 0644);

// Absolute path of the running `ray` executable.
std::string SelfExecutable();
bool ProcessAlive(int pid);
// The process's command line with NULs turned into spaces ("" if gone).
std::string ProcessCmdline(int pid);

// Content hash used to name plugins (64-bit FNV-1a over the bytes, as hex).
std::string ContentHash(std::string_view bytes);

std::vector<std::string> Split(std::string_view s, char sep);

// $HOME ("" if unset).
std::string HomeDir();
// `path` with a leading "~" or "~/" made `home` (default: $HOME), as a shell would.
std::string ExpandUser(const std::string& path, const std::string& home = HomeDir());

// This machine's IPv4 address on the route toward `host` (an IPv4 address), found
// by connecting a UDP socket (nothing is sent); nullopt if there is no route.
std::optional<std::string> LocalAddressToward(const std::string& host);

}  // namespace ray
