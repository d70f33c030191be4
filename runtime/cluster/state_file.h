#pragma once
// A provider's state: one JSON document in a file, read and written under an
// exclusive lock (flock on <path>.lock), so that the launcher and the autoscaler, in
// different processes, never interleave their changes. Mode 0600.

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "runtime/base/status.h"

namespace ray::cluster {

// Runs `change` on the file's document ({} when there is none yet) while holding the
// lock, then writes it back atomically if `change` returned Ok. A document that does
// not parse is DataLoss, naming the file (it is left as it is for the user to look at).
Status UpdateStateFile(const std::string& path, const std::function<Status(nlohmann::json&)>& change);

// The document, read under the same lock ({} when there is none).
Result<nlohmann::json> ReadStateFile(const std::string& path);

}  // namespace ray::cluster
