#pragma once
// A runtime_env working_dir as it travels: the directory's regular files (recursively,
// symlinks followed) packed into one msgpack blob, [[relative path, mode, bytes], ...],
// stored in the GCS by content hash like plugin files, and unpacked on each node.

#include <string>

#include "runtime/base/status.h"

namespace ray::core {

// At most this many bytes of files (Ray's limit for a working_dir is 100 MiB too).
constexpr size_t kMaxWorkingDirBytes = 100u << 20;

// The blob of directory `dir`; InvalidArgument if it is not a directory or too large.
Result<std::string> PackWorkingDir(const std::string& dir);

// Writes the blob's files under `dir`, which must not exist: they are written to a
// sibling first and renamed into place, so that concurrent unpackers of one blob
// leave one complete copy. Ok if `dir` exists already.
Status UnpackWorkingDir(const std::string& blob, const std::string& dir);

}  // namespace ray::core
