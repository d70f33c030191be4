#pragma once
// Files and paths.

#include <string>
#include <string_view>

#include "runtime/base/status.h"

namespace ray {

Result<std::string> ReadFile(const std::string& path);
// Writes atomically (temp file + rename) with the given permissions.
Status WriteFile(const std::string& path, std::string_view data, int mode = 0644);
// Absolute path of the running `ray` executable.
std::string SelfExecutable();
// $HOME ("" if unset).
std::string HomeDir();
// `path` with a leading "~" or "~/" made `home` (default: $HOME), as a shell would.
std::string ExpandUser(const std::string& path, const std::string& home = HomeDir());

}  // namespace ray
